/** The tenant of Projects from before tenants, and of those a global caller creates without naming one (made by the Tenants migration). */
export const DEFAULT_TENANT = 'default';
