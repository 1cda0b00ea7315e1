import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM } from './browser';

/**
 * The suite's Temporal Web UI (process.env.TEMPORAL_UI_URL, test/support/global-setup.ts, decoding
 * payloads through the suite's codec endpoint) in headless Chromium: opens `page` (a path under the
 * namespace, such as `workflows/<id>/<run>/history`), lets `ready` find what it must show (and click
 * what it must open), then writes a screenshot to test-output/<file>. Skipped with a warning without
 * Chromium or a Web UI.
 */
export async function screenshotTemporalUi(
  page: string,
  file: string,
  ready: (page: Page) => Promise<void>,
  viewport = { width: 1400, height: 1100 },
): Promise<void> {
  if (!fs.existsSync(CHROMIUM) || !process.env.TEMPORAL_UI_URL) {
    console.warn(`no Chromium at ${CHROMIUM} or no Web UI: the Web UI screenshot ${file} is skipped`);
    return;
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const tab = await browser.newPage({ viewport });
    await tab.goto(`${process.env.TEMPORAL_UI_URL}/namespaces/default/${page}`);
    await ready(tab);
    const output = path.join(__dirname, '..', '..', 'test-output');
    fs.mkdirSync(output, { recursive: true });
    await tab.screenshot({ path: path.join(output, file) });
    console.log(`screenshot of ${page} in the Web UI: ${path.join(output, file)}`);
  } finally {
    await browser.close();
  }
}

/** The history page of a workflow's run in the Web UI (its other tabs are clicked from there). */
export function workflowPage(workflowId: string, runId: string): string {
  return `workflows/${encodeURIComponent(workflowId)}/${runId}/history`;
}

/**
 * The Web UI shows summaries and details (static and current) as Markdown rendered in frames of its own,
 * `/render?content=<the text>`: the decoded text travels in those URLs. Waits until one of them shows
 * `text`, and answers every such frame's URL content (decoded), for checks of what they carry.
 */
export async function waitForRenderedText(page: Page, text: RegExp, timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rendered = page.frames().filter((frame) => frame.url().includes('/render?'));
    const shown = await Promise.all(
      rendered.map((frame) =>
        frame
          .locator('body')
          .innerText()
          .catch(() => ''),
      ),
    );
    if (shown.some((body) => text.test(body)))
      return rendered.map((frame) => new URL(frame.url()).searchParams.get('content') ?? '');
    if (Date.now() > deadline) throw new Error(`no rendered summary or details of the Web UI showed ${text}`);
    await page.waitForTimeout(200);
  }
}
