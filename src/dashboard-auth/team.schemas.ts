import { z } from 'zod';
import { ROLES } from '../http/auth';
import { PASSWORD_MAX_LENGTH } from './passwords';

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
  })
  .refine((body) => body.name !== undefined || body.time_zone !== undefined, {
    message: 'give name or time_zone',
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
