import { z } from 'zod';
import { ROLES } from '../http/auth';
import { resourceId } from '../http/validation';
import { PASSWORD_MAX_LENGTH } from './passwords';
import { EMAIL_KINDS } from '../emails/email.schemas';
import { USER_EMAIL_KINDS } from './user-emails';

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

/** Days before a moment its reminder goes: a whole number from 1 to 30, or null for none. */
const reminderDays = z
  .union([
    z.number().int('must be a whole number of days').min(1, 'must be at least 1').max(30, 'must be at most 30'),
    z.null(),
  ])
  .optional();

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
      .array(z.enum([...EMAIL_KINDS, ...USER_EMAIL_KINDS]))
      .max(EMAIL_KINDS.length + USER_EMAIL_KINDS.length)
      .optional()
      .describe(
        'The kinds of email not sent: to customers (invoice, receipt, payment_failed, installment_failed, renewal_reminder, trial_ending) and to users (team_invitation)',
      ),
    renewal_reminder_days: reminderDays.describe(
      'Days before a renewal its reminder is emailed (1 to 30); null: none (docs/decisions.md §31)',
    ),
    trial_end_reminder_days: reminderDays.describe(
      "Days before a trial's end its reminder is emailed (1 to 30); null: none (docs/decisions.md §31)",
    ),
    brand_color: z
      .union([
        z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb')
          .transform((color) => color.toLowerCase()),
        z.null(),
      ])
      .optional()
      .describe("The account's colour in its emails and hosted pages, as #rrggbb; null: the service's blue"),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message:
      'give name, time_zone, email_from, emails_off, renewal_reminder_days, trial_end_reminder_days or brand_color',
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

/** A member or an invitation in the path: a malformed id is an unknown one (docs/decisions.md §17). */
export const teamIdParams = z.object({ id: resourceId });

export const accountSettingsSchema = z
  .object({
    object: z.literal('account'),
    id: z.string(),
    name: z.string(),
    time_zone: z.string(),
    email_from: z.string().nullable(),
    emails_off: z.array(z.string()),
    renewal_reminder_days: z.number().int().nullable(),
    trial_end_reminder_days: z.number().int().nullable(),
    brand_color: z.string().nullable(),
  })
  .meta({ id: 'AccountSettings' });

export const memberSchema = z
  .object({
    object: z.literal('member'),
    id: z.string().describe("The user's id: a user is a member of an account once"),
    name: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    disabled: z.boolean(),
    created: z.number().int(),
  })
  .meta({ id: 'Member' });

export const invitationSchema = z
  .object({
    object: z.literal('invitation'),
    id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    created: z.number().int(),
    expires_at: z.number().int(),
    emailed_at: z
      .number()
      .int()
      .nullable()
      .describe('When the SMTP server took its email; null: not emailed (switched off, no server, refused)'),
    url: z
      .string()
      .optional()
      .describe('Only in the answer to its creation: the link is not stored and cannot be shown again'),
  })
  .meta({ id: 'Invitation' });

export const memberListSchema = z.object({ object: z.literal('list'), data: z.array(memberSchema) });
export const invitationListSchema = z.object({ object: z.literal('list'), data: z.array(invitationSchema) });
