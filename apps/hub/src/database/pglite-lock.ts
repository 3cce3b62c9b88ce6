import { readFileSync, rmSync, writeFileSync } from 'node:fs';

// PGlite runs inside one process; a second process on the same files would
// corrupt them. A pid file next to the data refuses that, and a stale one
// (its process gone) is taken over.

export class DataDirInUseError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(`in use by process ${pid} (${lockFile}); stop that hub or use another FLOTILLA_DATA_DIR`);
    this.name = 'DataDirInUseError';
  }
}

/** Claims `lockFile` for this process; returns the release function. */
export function lockDataDir(lockFile: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
      return () => rmSync(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number(readFileSync(lockFile, 'utf8').trim());
    // the same process may reopen its own database (tests restart hubs in process)
    if (pid === process.pid) return () => rmSync(lockFile, { force: true });
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new DataDirInUseError(lockFile, pid);
    rmSync(lockFile, { force: true });
  }
  throw new Error(`could not claim ${lockFile}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
