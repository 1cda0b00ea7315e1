import nodemailer, { type Transporter } from 'nodemailer';

/** A message as the email activity hands it to SMTP. */
export interface OutgoingMessage {
  from: string | { name: string; address: string };
  to: string;
  subject: string;
  html: string;
  text: string;
  /** The Message-ID header, the same on every attempt of the message (docs/decisions.md §30). */
  messageId: string;
  attachments: { filename: string; contentType: string; content: Buffer }[];
}

export interface Mailer {
  /** Sends the message; answers the SMTP server's reply once it has accepted it, throws otherwise. */
  send(message: OutgoingMessage): Promise<string>;
  close(): void;
  /** false: no SMTP server is configured (SMTP_URL unset), so nothing that would wait on one is started. */
  configured?: boolean;
}

/** Thrown when no SMTP server is configured: the activity retries until one is. */
export class NoSmtpServerError extends Error {
  constructor() {
    super('No SMTP server is configured (SMTP_URL): the email stays queued.');
    this.name = 'NoSmtpServerError';
  }
}

/**
 * nodemailer over the SMTP server of `smtpUrl` (docs/configuration.md, SMTP_URL), a pooled connection
 * reused between messages. Without a URL every send throws NoSmtpServerError.
 */
export function createMailer(smtpUrl: string | undefined): Mailer {
  if (!smtpUrl)
    return {
      send: () => Promise.reject(new NoSmtpServerError()),
      close: () => undefined,
      configured: false,
    };
  const transport: Transporter = nodemailer.createTransport({
    url: smtpUrl,
    pool: true,
    maxConnections: 2,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(message) {
      const info = (await transport.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        html: message.html,
        text: message.text,
        messageId: message.messageId,
        attachments: message.attachments,
      })) as { response?: string };
      return info.response ?? 'accepted';
    },
    close: () => transport.close(),
  };
}
