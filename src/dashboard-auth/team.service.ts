import crypto from 'node:crypto';
import { Prisma, type Account } from '../generated/prisma/client';
import type { Db } from '../db/prisma';
import { ROLES, type Role } from '../http/auth';
import { ApiError } from '../http/errors';
import { columnValue } from '../lib/columns';
import { newId } from '../lib/ids';
import { hashPassword, PASSWORD_MIN_LENGTH, verifyPassword } from './passwords';
import { normalizeEmail } from './user.service';
import {
  claimInvitation,
  findInvitation,
  findInvitationByTokenHash,
  insertInvitation,
  lockAccountForTeam,
  readInvitationWithAccount,
  readPendingInvitations,
  revokePendingInvitation,
  setInvitationEmailed,
} from './team.records';
import {
  countMembersWithRole,
  deleteMembership,
  ensureMembership,
  findMembership,
  findMembershipByEmail,
  findUserByEmail,
  insertUser,
  readAccountMemberships,
  readExistingUserName,
  setMembershipRole,
} from './user.records';
import { deleteUserSessions } from './session.records';
import { readAccountProfile, readExistingAccount, updateAccountSettingsRow } from '../accounts';
import { fromAddressOf } from '../emails';
import type { Mailer } from '../emails';
import type { Logger } from '../http/logger';
import { invitationEmail, sendUserEmail } from './user-emails';

/** How long an invitation's link works (docs/api.md "Dashboard team"). */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

const memberMissing = (id: string) => new ApiError('not_found', 'resource_missing', `No such member: '${id}'`, 'id');
const invitationMissing = (id: string) =>
  new ApiError('not_found', 'resource_missing', `No such invitation: '${id}'`, 'id');

export interface AccountSettings {
  object: 'account';
  id: string;
  name: string;
  time_zone: string;
  /** The From of its emails to customers; null: EMAIL_FROM with the account's name (docs/decisions.md §30). */
  email_from: string | null;
  /** Kinds of email to customers switched off. */
  emails_off: string[];
  /** Days before a renewal, and before a trial's end, their reminders go; null: none (docs/decisions.md §31). */
  renewal_reminder_days: number | null;
  trial_end_reminder_days: number | null;
  /** The account's colour (#rrggbb) in its emails and hosted pages; null: the service's blue. */
  brand_color: string | null;
}

function toAccountSettings(account: Account): AccountSettings {
  return {
    object: 'account',
    id: account.id,
    name: account.name,
    time_zone: account.timeZone,
    email_from: account.emailFrom,
    emails_off: account.emailsOff ?? [],
    renewal_reminder_days: account.renewalReminderDays,
    trial_end_reminder_days: account.trialEndReminderDays,
    brand_color: account.brandColor,
  };
}

export async function getAccountSettings(prisma: Db, accountId: string): Promise<AccountSettings> {
  return toAccountSettings(await readExistingAccount(prisma, accountId));
}

export async function updateAccountSettings(
  prisma: Db,
  accountId: string,
  input: {
    name?: string;
    time_zone?: string;
    email_from?: string | null;
    emails_off?: string[];
    renewal_reminder_days?: number | null;
    trial_end_reminder_days?: number | null;
    brand_color?: string | null;
  },
): Promise<AccountSettings> {
  const account = await updateAccountSettingsRow(prisma, accountId, {
    name: input.name,
    timeZone: input.time_zone,
    emailFrom: input.email_from,
    emailsOff: input.emails_off ? [...new Set(input.emails_off)] : undefined,
    renewalReminderDays: input.renewal_reminder_days,
    trialEndReminderDays: input.trial_end_reminder_days,
    brandColor: input.brand_color,
  });
  return toAccountSettings(account);
}

export interface MemberObject {
  object: 'member';
  /** The user's id: a user is a member of an account once. */
  id: string;
  name: string;
  email: string;
  role: Role;
  disabled: boolean;
  created: number;
}

export async function listMembers(prisma: Db, accountId: string): Promise<MemberObject[]> {
  const rows = await readAccountMemberships(prisma, accountId);
  return rows.map((row) => ({
    object: 'member',
    id: row.user.id,
    name: row.user.name,
    email: row.user.email,
    role: columnValue(ROLES, row.role, 'memberships.role'),
    disabled: row.user.disabled,
    created: seconds(row.createdAt),
  }));
}

const lastSuperadmin = (self: boolean) =>
  new ApiError(
    'conflict',
    'last_superadmin',
    self
      ? 'You are the last superadmin of this account: make another member superadmin first.'
      : 'This is the last superadmin of this account: make another member superadmin first.',
  );

/**
 * Changes a member's role, or removes the member (`role` null), keeping at least one superadmin: the
 * account's row is locked first, so concurrent changes are counted one after the other. A removed
 * member's sessions on the account end with the row (they would answer 401 at their next request anyway).
 */
export async function changeMember(
  prisma: Db,
  accountId: string,
  actorId: string,
  userId: string,
  role: Role | null,
): Promise<MemberObject | undefined> {
  await prisma.$transaction(async (tx) => {
    await lockAccountForTeam(tx, accountId);
    const member = await findMembership(tx, userId, accountId);
    if (!member) throw memberMissing(userId);
    if (member.role === 'superadmin' && role !== 'superadmin') {
      const superadmins = await countMembersWithRole(tx, accountId, 'superadmin');
      if (superadmins <= 1) throw lastSuperadmin(userId === actorId);
    }
    if (role === null) {
      await deleteMembership(tx, userId, accountId);
      await deleteUserSessions(tx, userId, accountId);
    } else {
      await setMembershipRole(tx, userId, accountId, role);
    }
  });
  if (role === null) return undefined;
  return (await listMembers(prisma, accountId)).find((member) => member.id === userId);
}

export interface InvitationObject {
  object: 'invitation';
  id: string;
  email: string;
  role: Role;
  created: number;
  expires_at: number;
  /** When the SMTP server took its email (docs/decisions.md §32); null: not emailed (switched off, no server, refused). */
  emailed_at: number | null;
  /** Only in the answer to its creation: the link is not stored and cannot be shown again. */
  url?: string;
}

type InvitationRow = Prisma.InvitationGetPayload<object>;

function invitationObject(row: InvitationRow): InvitationObject {
  return {
    object: 'invitation',
    id: row.id,
    email: row.email,
    role: columnValue(ROLES, row.role, 'invitations.role'),
    created: seconds(row.createdAt),
    expires_at: seconds(row.expiresAt),
    emailed_at: row.emailedAt ? seconds(row.emailedAt) : null,
  };
}

/**
 * Emails the invitation's link to the invited person (docs/decisions.md §32), unless the account
 * switched `team_invitation` off, and records on the invitation when the SMTP server took it (or why
 * not). Never fails the invitation: its link is answered to copy either way.
 */
export async function emailInvitation(
  prisma: Db,
  mailer: Mailer,
  log: Logger,
  session: { accountId: string; user: { name: string } },
  invitation: InvitationObject & { url: string },
): Promise<{ emailed_at: number | null }> {
  const account = await readAccountProfile(prisma, session.accountId);
  if (!account || account.emailsOff.includes('team_invitation')) return { emailed_at: null };
  const outcome = await sendUserEmail(mailer, log, {
    to: invitation.email,
    from: fromAddressOf(account),
    kind: 'team_invitation',
    content: invitationEmail({
      accountName: account.name,
      inviterName: session.user.name,
      role: invitation.role,
      url: invitation.url,
      expiresAt: new Date(invitation.expires_at * 1000),
      timeZone: account.timeZone,
      color: account.brandColor,
    }),
  });
  await setInvitationEmailed(
    prisma,
    invitation.id,
    'sentAt' in outcome ? { emailedAt: outcome.sentAt } : { emailError: outcome.error },
  );
  return { emailed_at: 'sentAt' in outcome ? seconds(outcome.sentAt) : null };
}

/**
 * An invitation made and emailed by the one request that has its link in clear (docs/decisions.md
 * §32): the answer carries the link (to copy) and when its email went.
 */
export async function inviteMember(
  prisma: Db,
  mailer: Mailer,
  log: Logger,
  inviter: { accountId: string; userId: string },
  input: { email: string; role: Role },
  linkBase: string,
): Promise<InvitationObject & { url: string }> {
  const invitation = await createInvitation(prisma, inviter.accountId, inviter.userId, input, linkBase);
  const user = await readExistingUserName(prisma, inviter.userId);
  const emailed = await emailInvitation(prisma, mailer, log, { accountId: inviter.accountId, user }, invitation);
  return { ...invitation, ...emailed };
}

export function tokenHashOf(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** Invitations neither accepted, revoked nor expired, newest first. */
export async function listInvitations(prisma: Db, accountId: string, now = new Date()): Promise<InvitationObject[]> {
  return (await readPendingInvitations(prisma, accountId, now)).map(invitationObject);
}

export async function createInvitation(
  prisma: Db,
  accountId: string,
  inviterId: string,
  input: { email: string; role: Role },
  linkBase: string,
  now = new Date(),
): Promise<InvitationObject & { url: string }> {
  const email = normalizeEmail(input.email);
  const member = await findMembershipByEmail(prisma, accountId, email);
  if (member)
    throw new ApiError('conflict', 'already_member', `${email} is a member of this account already.`, 'email');
  const token = crypto.randomBytes(32).toString('base64url');
  const row = await insertInvitation(prisma, {
    id: newId('invitation'),
    accountId,
    email,
    role: input.role,
    tokenHash: tokenHashOf(token),
    invitedBy: inviterId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
  });
  return { ...invitationObject(row), url: `${linkBase}/dashboard/invitations/${token}` };
}

export async function revokeInvitation(prisma: Db, accountId: string, id: string, now = new Date()): Promise<void> {
  if (await revokePendingInvitation(prisma, accountId, id, now)) return;
  const row = await findInvitation(prisma, accountId, id);
  if (!row) throw invitationMissing(id);
  throw new ApiError('conflict', 'invitation_not_pending', 'This invitation was accepted, revoked or has expired.');
}

/** Why a link no longer works, in words the invited person reads on the page. */
function unusable(row: InvitationRow | null, now: Date): ApiError | undefined {
  if (!row)
    return new ApiError(
      'not_found',
      'invitation_unknown',
      'This invitation link is not valid: ask for a new invitation.',
      'token',
    );
  if (row.acceptedAt)
    return new ApiError(
      'conflict',
      'invitation_used',
      'This invitation has been used already: sign in instead.',
      'token',
      410,
    );
  if (row.revokedAt)
    return new ApiError(
      'conflict',
      'invitation_revoked',
      'This invitation was revoked: ask for a new one.',
      'token',
      410,
    );
  if (row.expiresAt <= now)
    return new ApiError(
      'conflict',
      'invitation_expired',
      'This invitation has expired: ask for a new one.',
      'token',
      410,
    );
  return undefined;
}

export interface InvitationPreview {
  object: 'invitation_preview';
  email: string;
  role: Role;
  account_name: string;
  /** Whether the email has a user already: they join with their password instead of choosing one. */
  existing_user: boolean;
  expires_at: number;
  /** The account's time zone, for the page to show the expiry in. */
  time_zone: string;
}

export async function previewInvitation(prisma: Db, token: string, now = new Date()): Promise<InvitationPreview> {
  const row = await readInvitationWithAccount(prisma, tokenHashOf(token));
  const refusal = unusable(row, now);
  if (refusal) throw refusal;
  const user = await findUserByEmail(prisma, row!.email);
  return {
    object: 'invitation_preview',
    email: row!.email,
    role: columnValue(ROLES, row!.role, 'invitations.role'),
    account_name: row!.account.name,
    existing_user: user !== null,
    expires_at: seconds(row!.expiresAt),
    time_zone: row!.account.timeZone,
  };
}

export type AcceptOutcome =
  { outcome: 'joined'; userId: string; accountId: string } | { outcome: 'wrong_password'; email: string };

/**
 * Accepts an invitation: a new user with the name and password given, or the user who has the email
 * already after their password is checked. The invitation is claimed by one conditional update in
 * the same transaction as the membership, so a link works once.
 */
export async function acceptInvitation(
  prisma: Db,
  token: string,
  input: { name?: string; password: string },
  now = new Date(),
): Promise<AcceptOutcome> {
  const tokenHash = tokenHashOf(token);
  const row = await findInvitationByTokenHash(prisma, tokenHash);
  const refusal = unusable(row, now);
  if (refusal) throw refusal;
  const invitation = row!;
  const existing = await findUserByEmail(prisma, invitation.email);
  let passwordHash: string | undefined;
  if (existing) {
    // Joining as an existing user is a sign-in: their own password, checked as the sign-in does.
    if (existing.disabled || !(await verifyPassword(input.password, existing.passwordHash)))
      return { outcome: 'wrong_password', email: invitation.email };
  } else {
    if (!input.name)
      throw new ApiError('invalid_request_error', 'parameter_missing', 'Missing required param: name.', 'name');
    if (input.password.length < PASSWORD_MIN_LENGTH)
      throw new ApiError(
        'invalid_request_error',
        'parameter_invalid',
        `Invalid password: must be at least ${PASSWORD_MIN_LENGTH} characters.`,
        'password',
      );
    passwordHash = await hashPassword(input.password);
  }
  try {
    return await prisma.$transaction(async (tx) => {
      if (!(await claimInvitation(tx, invitation.id, now)))
        throw unusable(await findInvitationByTokenHash(tx, tokenHash), now)!;
      const user =
        existing ??
        (await insertUser(tx, {
          id: newId('user'),
          email: invitation.email,
          name: input.name!,
          passwordHash: passwordHash!,
        }));
      await ensureMembership(tx, { userId: user.id, accountId: invitation.accountId, role: invitation.role });
      return { outcome: 'joined' as const, userId: user.id, accountId: invitation.accountId };
    });
  } catch (error) {
    // The email became a user between the read and the write: they join with their password instead.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
      throw new ApiError('conflict', 'email_taken', 'A user with this email exists now: reload the page.', 'token');
    throw error;
  }
}
