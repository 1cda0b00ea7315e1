import crypto from 'node:crypto';
import { config } from '../config';
import { renderEmail, type EmailContent } from '../emails';
import type { Mailer } from '../emails';
import type { Logger } from '../http/logger';

/**
 * Emails to the dashboard's users, not to an account's customers (docs/decisions.md §32): an invitation
 * and a password reset. Their link is a credential the database keeps only hashed, so the message is
 * made and sent by the request that made the link (the link is never written anywhere to send it later).
 */

/** The kinds of email to users an account can switch off (`emails_off`); a password reset is the user's own. */
export const USER_EMAIL_KINDS = ['team_invitation'] as const;

function longDateTime(date: Date, timeZone: string): string {
  const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone }).format(date);
  return `${when} (${timeZone})`;
}

export function invitationEmail(input: {
  accountName: string;
  inviterName: string | null;
  role: string;
  url: string;
  expiresAt: Date;
  timeZone: string;
  color: string | null;
}): EmailContent {
  const by = input.inviterName ? `${input.inviterName} invited you` : 'You are invited';
  return renderEmail({
    subject: `Join ${input.accountName} on the billing dashboard`,
    accountName: input.accountName,
    headline: `Join ${input.accountName}`,
    lead: `${by} to the billing dashboard of ${input.accountName} as ${input.role}. The link works once, until ${longDateTime(input.expiresAt, input.timeZone)}.`,
    facts: [{ label: 'Role', value: input.role }],
    lines: [],
    summary: [],
    billTo: [],
    shipTo: [],
    action: { label: 'Accept the invitation', url: input.url },
    color: input.color,
    footer: 'Did not expect this? Ignore this email: nothing happens without the link.',
  });
}

export function passwordResetEmail(input: { name: string; url: string; expiresAt: Date }): EmailContent {
  return renderEmail({
    subject: 'Reset your billing dashboard password',
    accountName: 'Billing dashboard',
    headline: 'Reset your password',
    lead: `Hello ${input.name}: someone (we hope you) asked to reset the password of this email's dashboard user. The link works once, for an hour (until ${longDateTime(input.expiresAt, 'UTC')}); a reset signs you out everywhere.`,
    facts: [],
    lines: [],
    summary: [],
    billTo: [],
    shipTo: [],
    action: { label: 'Choose a new password', url: input.url },
    footer: 'Did not ask for it? Ignore this email: your password stays as it is.',
  });
}

/**
 * Sends a user's email through the API's SMTP server; answers when the server took it, or why not
 * (logged without the message, whose link is a credential). Never throws: the caller records the outcome.
 */
export async function sendUserEmail(
  mailer: Mailer,
  log: Logger,
  message: { to: string; from?: { name: string; address: string }; content: EmailContent; kind: string },
): Promise<{ sentAt: Date } | { error: string }> {
  try {
    await mailer.send({
      from: message.from ?? { name: 'Billing dashboard', address: config.emailFromDefault },
      to: message.to,
      subject: message.content.subject,
      html: message.content.html,
      text: message.content.text,
      messageId: `<${message.kind}-${crypto.randomUUID()}@${(message.from?.address ?? config.emailFromDefault).split('@')[1] ?? 'localhost'}>`,
      attachments: [],
    });
    return { sentAt: new Date() };
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
    log.warn({ kind: message.kind, reason }, 'email to a dashboard user not sent');
    return { error: reason };
  }
}
