// Validates events against the vendored CDEvents v0.5.1 schemas (testdata/cdevents-spec, see its NOTICE).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export const SPEC_DIR = join(__dirname, '..', 'testdata', 'cdevents-spec');
const SCHEMAS = join(SPEC_DIR, 'v0.5.1', 'schemas');

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

let ajv: Ajv2020 | undefined;
function validator(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const dir of [SCHEMAS, join(SCHEMAS, 'links')]) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) ajv.addSchema(readJson(join(dir, f)));
  }
  return ajv;
}

/** The schema errors of `event` against the v0.5.1 schema of its type ([] when valid). */
export function schemaErrors(event: { context: { type: string } }): string[] {
  // dev.cdevents.service.deployed.0.3.0 → https://cdevents.dev/0.5.1/schema/service-deployed-event
  const [, , subject, predicate] = event.context.type.split('.');
  const validate = validator().getSchema(`https://cdevents.dev/0.5.1/schema/${subject}-${predicate}-event`);
  if (!validate) return [`no vendored schema for ${event.context.type}`];
  return validate(event) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** A vendored example, e.g. `v0.5.1/conformance/service_deployed.json`. */
export function specExample(path: string): Record<string, unknown> {
  return readJson(join(SPEC_DIR, path));
}
