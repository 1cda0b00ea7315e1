import { spawn } from 'node:child_process';

/**
 * pdf-parse in a node process of its own: its pdf.js sets up a worker by a dynamic import, which
 * Jest's module sandbox refuses without --experimental-vm-modules.
 */
const READ_PDF = `
const { PDFParse } = require('pdf-parse');
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', async () => {
  const parser = new PDFParse({ data: new Uint8Array(Buffer.concat(chunks)) });
  const result = await parser.getText();
  await parser.destroy();
  process.stdout.write(result.text);
});`;

/** The text of a PDF, page after page, as pdf-parse reads it back. */
export function pdfText(pdf: Buffer | Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', READ_PDF], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`pdf-parse failed (${code}): ${err}`))));
    child.stdin.end(Buffer.from(pdf));
  });
}

/** A customer with a billing address and a shipping address, as the documents show them. */
export const customerWithAddresses = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '+44 20 7946 0000',
  address: [{ line1: '12 St James Square', city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' }],
  shipping: {
    name: 'Ada at the Lab',
    phone: '+44 20 7946 0001',
    address: { line1: '5 Analytical Row', line2: 'Unit 3', city: 'Manchester', postal_code: 'M1 1AE', country: 'GB' },
  },
};

/** A GET answered with a PDF, read as bytes (apiClient reads answers as text), with the headers the tests check. */
export async function fetchPdf(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}
