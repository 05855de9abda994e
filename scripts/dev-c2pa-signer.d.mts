export function generateDevC2paSigner(name: string, options?: { days?: number }): Promise<{ C2PA_SIGNING_KEY: string; C2PA_SIGNING_CERTS: string; rootPem: string }>;
