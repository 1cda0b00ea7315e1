// The terminals module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export {
  claimTerminal,
  findSaleWithTerminal,
  insertTerminalSale,
  readSaleRow,
  releaseTerminal,
  requestSaleCancel,
  updateTerminalSale,
} from './terminal.records';
export { saveProcessorTerminalCard, saveTerminalCard } from './terminal-card';
export type { PresentedCard } from './terminal-card';
export {
  processorSaleOutcome,
  registerTerminalProcessor,
  simulatedTerminalProcessor,
  terminalProcessorFor,
} from './terminal-processor';
export type {
  ProcessorSale,
  ProcessorSaleOutcome,
  ProcessorSaleReport,
  TerminalProcessor,
  TerminalProcessorFactory,
} from './terminal-processor';
export { findTerminal } from './terminal.service';
export { registerTerminalRoutes } from './terminal.routes';
