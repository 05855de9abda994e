export const PUBLIC_DIR: string;
export const PAGE_FILES: string[];
export const DOCS_FILES: string[];
export const CONSOLE_FILES: string[];
export const CERTIFICATE_PAGE_FILES: string[];
export function buildPage(): Promise<void>;
export function compressedSizes(files?: string[]): Record<string, number>;
