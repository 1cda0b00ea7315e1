// The emails module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { emailSchema } from './email.schemas';
export type { EmailKind, EmailObject, InvoiceEmailKind, ReminderEmailKind } from './email.schemas';
export { registerCaughtEmailRoutes } from './caught-email.routes';
export { toEmailObject } from './email-list.service';
export { registerEmailRoutes } from './email.routes';
export { createMailer } from './mailer';
export type { Mailer } from './mailer';
export { startSmtpCatcher } from './smtp-catcher';
export type { SmtpCatcher } from './smtp-catcher';
export { renderEmail } from './email-content';
export type { EmailContent, EmailLinks, ReminderDetails } from './email-content';
export { emailConsumer } from './email-trigger';
export {
  deliverEmail,
  fromAddressOf,
  giveUpEmail,
  prepareEmail,
  queueReminderEmail,
  queueRequestedInvoiceEmail,
  requestedInvoiceEmailId,
  wantedReminderDays,
} from './email.service';
export type { DeliveryOutcome } from './email.service';
