import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type AddressObject } from 'mailparser';
import type { Db } from '../db/prisma';
import { logger as defaultLogger, type Logger } from '../http/logger';
import { insertCaughtEmail } from './email.records';

export interface SmtpCatcher {
  port: number;
  /** The SMTP_URL that sends to it. */
  url: string;
  stop(): Promise<void>;
}

/** Largest message the catcher takes (an invoice PDF is a few KB). */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  const objects = Array.isArray(field) ? field : field ? [field] : [];
  return objects.flatMap((object) => object.value.map((entry) => entry.address?.toLowerCase() ?? '')).filter(Boolean);
}

/**
 * A local SMTP server that keeps every message it receives in caught_emails (HTML, text and
 * attachments, as mailparser reads them): `npm start` runs one on 127.0.0.1 as SMTP_URL's default,
 * and tests run their own (docs/configuration.md, SMTP_URL). No TLS, any or no login is accepted:
 * it listens on the loopback address only.
 */
export async function startSmtpCatcher(options: {
  prisma: Db;
  port?: number;
  host?: string;
  logger?: Logger;
}): Promise<SmtpCatcher> {
  const log = options.logger ?? defaultLogger;
  const host = options.host ?? '127.0.0.1';
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'catcher' });
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (parsed) => {
          const to = [
            ...new Set([
              ...session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              ...addressesOf(parsed.to),
              ...addressesOf(parsed.cc),
            ]),
          ];
          await insertCaughtEmail(options.prisma, {
            messageId: parsed.messageId ?? null,
            fromAddress: addressesOf(parsed.from)[0] ?? (session.envelope.mailFrom || null)?.address ?? null,
            toAddresses: to,
            subject: parsed.subject ?? null,
            html: typeof parsed.html === 'string' ? parsed.html : null,
            text: parsed.text ?? null,
            attachments: parsed.attachments.map((attachment) => ({
              filename: attachment.filename ?? 'attachment',
              content_type: attachment.contentType,
              size: attachment.size,
              content: attachment.content.toString('base64'),
            })),
          });
          callback();
        })
        .catch((error: unknown) => {
          log.error({ err: error }, 'SMTP catcher could not keep a message');
          callback(error instanceof Error ? error : new Error(String(error)));
        });
    },
  });
  server.on('error', (error) => log.warn({ err: error }, 'SMTP catcher error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    url: `smtp://${host}:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
