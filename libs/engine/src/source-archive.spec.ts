import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packPath } from '@flotilla/oci';
import { ArchiveError, readSourceArchive } from './source-archive';
import { testDir } from '../../../test/harness/temp-dirs';

const limits = { maxBytes: 1024 * 1024, maxFiles: 100 };

describe('readSourceArchive', () => {
  it('reads the files of a packed Project directory', async () => {
    const dir = testDir('flotilla-archive-');
    mkdirSync(join(dir, 'app'));
    writeFileSync(join(dir, 'project.cue'), 'project: {}\n');
    writeFileSync(join(dir, 'app', 'bundle.cue'), 'bundle: {}\n');
    const files = await readSourceArchive((await packPath(dir)).data, limits);
    expect(Object.keys(files).sort()).toEqual(['app/bundle.cue', 'project.cue']);
    expect(Buffer.from(files['project.cue']).toString()).toBe('project: {}\n');
  });

  it('refuses what is not a gzip tar, and an archive over the limits', async () => {
    await expect(readSourceArchive(Buffer.from('not a tarball'), limits)).rejects.toThrow(ArchiveError);
    const dir = testDir('flotilla-archive-');
    writeFileSync(join(dir, 'big.cue'), 'x'.repeat(4096));
    await expect(readSourceArchive((await packPath(dir)).data, { maxBytes: 1024, maxFiles: 100 })).rejects.toThrow(/not a usable gzip'd tar: /);
  });
});
