// A Project's files from a gzip'd tar the caller hands over (the fleet diff
// of a local directory), extracted with the same bounds and path checks as
// an artifact pulled from a registry.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { extractLayers, type ExtractOptions } from '@flotilla/oci';
import { readTree } from './source-fetch';
import type { SourceFiles } from './types';

export class ArchiveError extends Error {}

export async function readSourceArchive(archive: Buffer, limits: ExtractOptions, workDir = tmpdir()): Promise<SourceFiles> {
  const dest = await mkdtemp(join(workDir, 'flotilla-upload-'));
  try {
    await extractLayers([async () => Readable.from([archive])], join(dest, 'tree'), limits);
    return await readTree(join(dest, 'tree'));
  } catch (err) {
    throw new ArchiveError(`not a usable gzip'd tar: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    await rm(dest, { recursive: true, force: true });
  }
}
