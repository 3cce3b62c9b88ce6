// Pushes one blob from a plain Node process in which the npm undici (as
// libs/kube uses it) was loaded first. Jest gives each spec file fresh globals,
// so only a separate process shows how the two HTTP stacks meet.
import '@flotilla/kube';
import { parseReference, RegistryClient } from '@flotilla/oci';

async function main(host: string): Promise<void> {
  const client = new RegistryClient();
  const repo = parseReference(`oci://${host}/undici/probe:1`);
  const data = Buffer.from(`probe ${process.pid} ${Date.now()}`.repeat(20));
  const whole = await client.pushBlob(repo, data);
  const chunked = await client.pushBlob(repo, Buffer.concat([data, Buffer.from('chunked')]), { chunkSize: 64 });
  if (!whole.uploaded || !chunked.uploaded) throw new Error('blobs were not uploaded');
}

// run-ts.mjs leaves its own arguments in argv: the host is the last one.
main(process.argv[process.argv.length - 1]).catch((err: unknown) => {
  console.error(err instanceof Error ? `${err.message} ${String((err as Error & { cause?: unknown }).cause ?? '')}` : err);
  process.exit(1);
});
