/**
 * Every change of the subscription workflow's behaviour that runs already open must not see
 * (docs/decisions.md §1): each is asked with `patched(id)` where the old and the new code part, so a
 * recorded history replays its old commands (test/subscriptions/subscription-replay.test.ts) and a new run takes
 * the new path. A patch goes when its condition holds: then `patched(id)` becomes `deprecatePatch(id)`
 * for one release, and the old branch is deleted.
 */
export const SUBSCRIPTION_PATCHES = {
  /**
   * The creation's projection write (the row and subscription.created) is a local activity, run in
   * the first workflow task (runs started with `{create}`, before the API wrote the row itself).
   * Remove when no run started with `{create}` before it is open.
   */
  localCreation: 'subscription-local-creation',
  /**
   * A renewal invoice found paid still runs its charge activity, which reports the recorded attempt
   * (the Web UI shows its receipt). Remove when no run that billed before it is open.
   */
  firstChargeReceipt: 'first-charge-receipt',
  /**
   * The first invoice of a subscription the API created (decisions.md §14), made, finalized and
   * charged by the API, is settled in the first task with local activities; one still open to charge
   * goes to the charge activity, attempt 1. Remove when no run started before it is open.
   */
  firstPeriodLocal: 'first-period-local',
  /**
   * A pause by dunning keeps the open invoice's dunning entry, so that resume charges it again.
   * Remove when no run paused by dunning before it is open.
   */
  resumeChargesUnpaid: 'resume-charges-unpaid-invoice',
  /**
   * BillingStatus reads `past_due` while an invoice of an active subscription is in dunning, and the
   * status again once it is resolved. Remove when no run that started dunning before it is open.
   */
  pastDueStatus: 'billing-status-past-due',
  /**
   * Steps (updates, renewals, retries) take a FIFO lock: each is decided on the state the previous one
   * wrote, and a change of items is checked against the charge ceiling under it (decisions.md §7,
   * "Concurrent changes"). Remove when no run started before it is open.
   */
  serialSteps: 'serial-steps',
  /**
   * The end of dunning is recorded (a new version and subscription.updated), so the row leaves
   * `past_due`. Remove with pastDueStatus.
   */
  dunningEndRecorded: 'dunning-end-recorded',
  /**
   * An update that changes nothing writes no version and no event: it answers the row as it is.
   * Remove when no run that took such an update before it is open.
   */
  noOpUnrecorded: 'no-op-updates-unrecorded',
  /**
   * A change of items with a proration_behavior other than none is prorated under the lock (prices read
   * by a local activity; always_invoice invoices the lines at once), and ends carry pending lines
   * (docs/decisions.md §25). Only updates that ask for proration reach it, so older runs never do;
   * remove when no run that prorated before it is open.
   */
  prorations: 'subscription-prorations',
  /**
   * Before it waits for a renewal or a trial's end, the loop reads the account's reminder days (a local
   * activity) and waits for the reminder's moment first, then queues it and starts its email's workflow
   * (docs/decisions.md §31). Remove when no run that waited before it is open (one period: a year at most).
   */
  reminders: 'subscription-reminders',
  /**
   * A due start, trial end and period's billing (its invoice made and finalized, attempt 1 charged, the
   * period recorded) run as local activities in one workflow task, not as activity tasks with a
   * workflow task after each (docs/decisions.md §39). Remove when no run that billed before it is open
   * (one period: a year at most).
   */
  localSteps: 'subscription-local-steps',
  /**
   * A change's or an ending's credits for unused time are capped at what the period still holds (its
   * invoice's collected amount less what credit notes and refunds gave back, after discounts), read by a
   * local activity before the lines are kept or invoiced (docs/decisions.md §25). Reached only by prorated
   * changes and ends with a credit; remove when no run that prorated before it is open.
   */
  unusedTimeCap: 'subscription-unused-time-cap',
  /**
   * A change of items that leaves proration lines to charge waiting for the next invoice checks that
   * invoice (items and lines, as the renewal makes it: a local activity) against the charge ceiling under
   * the lock, after the change is prorated (docs/decisions.md §7, "Concurrent changes"). Only such changes
   * reach it; remove when no run that prorated before it is open.
   */
  nextInvoiceCeiling: 'next-invoice-ceiling',
  /**
   * A period that cannot be invoiced leaves the subscription past_due (BillingStatus too) until a later
   * period is invoiced, with subscription.period_not_invoiced and the worker's
   * billing_periods_not_invoiced (docs/decisions.md §7). Remove when no run that skipped a period before
   * it is open (one period: a year at most).
   */
  uninvoicedPastDue: 'uninvoiced-period-past-due',
  /**
   * A renewal's attempt 1 declined in the workflow task (a local activity, whose failure the Web UI does
   * not draw failed) is asked again of the charge activity: its attempt key answers the recorded attempt
   * without charging, and the activity fails (ChargeFailed), drawn failed like the dunning retries. Only
   * declines reach it; remove when no run that declined before it is open (one period: a year at most).
   */
  declinedChargeShown: 'declined-charge-shown-failed',
  /**
   * An ending (cancel now or at period end, end_date, cancel_at, dunning's cancel) of a subscription with
   * metered items invoices their usage since the period's start at once, with the lines it would invoice
   * anyway (docs/decisions.md §43). Only subscriptions with metered items reach it, which no run held
   * before; remove when none that ended before it is open.
   */
  finalUsage: 'usage-final-invoice',
  /**
   * A charge its processor answers `pending` (a bank debit: days) is held: the invoice is neither paid nor retried
   * until the processor's outcome is recorded and the workflow told (invoiceSettledSignal), which then asks the same
   * attempt again; a return counts as a failed attempt (docs/decisions.md §40). Only held charges reach it, which no
   * run saw before; remove when no run that held one before it is open.
   */
  heldCharges: 'held-charges',
  /**
   * A change of items that removes a metered item or moves it to another price inside a billed period keeps its
   * usage up to the change for the next invoice, and an item added or moved bills from the change on
   * (docs/decisions.md §43, "Changes of items"). Only changes of metered items reach it, and an ending then
   * bills the kept usage too; remove when no run that changed a metered item before it is open.
   */
  changedUsage: 'usage-kept-on-item-change',
  /**
   * A subscription with a billing threshold told of its customer's usage checks it under the lock, and invoices the
   * usage to date when it is reached (docs/decisions.md §43, "Billing thresholds"). Only subscriptions with a
   * threshold are told, which no run held before; remove when none that checked before it is open.
   */
  billingThresholds: 'usage-billing-thresholds',
  /**
   * An early (threshold) invoice whose charge fails enters the subscription's dunning as the period's invoice does
   * (docs/decisions.md §43, "Billing thresholds"); before it, it stayed open. Only a failed early invoice reaches
   * it; remove when no run whose early invoice failed before it is open.
   */
  thresholdDunning: 'threshold-invoice-dunning',
  /**
   * A settled notice of an invoice whose charge the workflow does not hold yet (the settlement overtook the charge's
   * answer: a test clock advanced right after the creation) is kept, and the charge asked about again once it is held
   * (docs/decisions.md §40). Only such early notices reach it; remove when no run that was told one before it is open.
   */
  earlySettledNotices: 'early-settled-notices',
  /**
   * An early (threshold) invoice whose charge its processor holds (a bank debit) is held as a renewal's is: its
   * outcome, when the workflow is told, is asked under the early invoice's attempt key, and a return starts that
   * invoice's dunning (docs/decisions.md §43, "Billing thresholds"); before it, the workflow left it as it was. Only
   * such held charges reach it; remove when no run that held one before it is open.
   */
  thresholdHeldCharges: 'threshold-invoice-held-charges',
} as const;
