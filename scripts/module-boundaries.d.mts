// Types of scripts/module-boundaries.mjs (plain JavaScript, since eslint.config.mjs loads it) for the scripts in TypeScript.
export const root: string;
export const PLUMBING: Set<string>;
export const WORKFLOW_SHARED: string[];
export function moduleOf(relative: string): string | null;
export function isCheckedImporter(relative: string): boolean;
export function isSchemas(relative: string): boolean;
export function resolveImport(importerRelative: string, specifier: string): string | null;
export function boundaryViolation(importerRelative: string, targetRelative: string): string | null;
export const modulesPlugin: { rules: Record<string, unknown> };
export function prismaModels(): string[];
export const PRISMA_OPERATIONS: string[];
