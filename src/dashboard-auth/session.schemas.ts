import { z } from 'zod';
import { resourceId } from '../http/validation';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';

const password = z.string().min(1, 'is required').max(PASSWORD_MAX_LENGTH);

export const loginBody = z.strictObject({
  email: z.string().trim().min(1, 'is required').max(254),
  password,
  account: resourceId.optional().describe("One of the user's accounts to start on; the oldest membership's otherwise"),
});

export const switchAccountBody = z.strictObject({ account: resourceId });

export const newPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH);

export const changePasswordBody = z.strictObject({
  current_password: password,
  new_password: newPassword,
});

export const passwordResetRequestBody = z.strictObject({
  email: z.string().trim().min(1, 'is required').max(254).pipe(z.email('must be an email address')),
});

export const passwordResetBody = z.strictObject({ password: newPassword });
