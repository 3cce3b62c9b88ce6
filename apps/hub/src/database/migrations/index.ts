import { Initial1763780000000 } from './1763780000000-initial';

// Migrations in the order they run. Written by hand (or generated, then
// reviewed); the schema never changes any other way.
export const hubMigrations = [Initial1763780000000];
