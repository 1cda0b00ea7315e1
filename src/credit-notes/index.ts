// The credit-notes module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { creditNoteIdParams, creditNoteSchema } from './credit-note.schemas';
export type { CreditNoteObject } from './credit-note.schemas';
export {
  creditNoteOfRefund,
  getCreditNote,
  getCreditNoteByNumber,
  listCreditNotes,
  recordCreditNoteRefund,
} from './credit-note.service';
export { registerCreditNoteRoutes } from './credit-note.routes';
