import { z } from 'zod';
import { ROLES } from '../http/auth';
import { PASSWORD_MAX_LENGTH } from './passwords';
import { EMAIL_KINDS } from '../emails/email-content';

/** Whether Intl knows the IANA zone (`Europe/Paris`, `UTC`); abbreviations such as `CET` are refused too. */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    return false;
  }
  return zone === 'UTC' || zone.includes('/');
}

export const accountSettingsBody = z
  .strictObject({
    name: z.string().trim().min(1, 'is required').max(200).optional(),
    time_zone: z
      .string()
      .max(64)
      .refine(isTimeZone, 'must be an IANA time zone such as Europe/Paris or UTC')
      .optional(),
    email_from: z
      .union([z.string().trim().max(254).pipe(z.email('must be an email address')), z.null()])
      .optional()
      .describe("The From of the account's emails to its customers; null: EMAIL_FROM with the account's name"),
    emails_off: z
      .array(z.enum(EMAIL_KINDS))
      .max(EMAIL_KINDS.length)
      .optional()
      .describe('The kinds of email not sent to customers (invoice, receipt, payment_failed)'),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give name, time_zone, email_from or emails_off',
    path: ['name'],
  });

export const roleBody = z.strictObject({ role: z.enum(ROLES) });

export const invitationBody = z.strictObject({
  email: z.string().trim().min(1, 'is required').max(254).pipe(z.email('must be an email address')),
  role: z.enum(ROLES),
});

/** A new user sets name and password; a user who has the email already gives their password instead. */
export const acceptBody = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(200).optional(),
  password: z.string().min(1, 'is required').max(PASSWORD_MAX_LENGTH),
});

/** The link's token: 32 bytes in base64url. Anything else is an unknown invitation. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
