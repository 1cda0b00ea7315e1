// The scale module's public face: what other modules use of it (written by scripts/module-faces.ts;
// docs/architecture.md, "Modules"). Files that load no other module's index.ts come first.
export { analyzeSeededTables, openSeedSession, seedChunk, seedSupportingRows } from './seed.records';
export type { SeedSizes, SeedTable } from './seed.records';
