// The terminals module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { processorSaleOutcome } from './terminal-processor';
export type { ProcessorSaleOutcome } from './terminal-processor';
export {
  claimTerminal,
  insertTerminalSale,
  readSaleRow,
  releaseTerminal,
  requestSaleCancel,
  updateTerminalSale,
} from './terminal.records';
export { findTerminal } from './terminal.service';
export { saveTerminalCard } from './terminal-card';
export type { PresentedCard } from './terminal-card';
export { registerTerminalRoutes } from './terminal.routes';
