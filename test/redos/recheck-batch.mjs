// Checks a batch of patterns with recheck's automaton, in a plain Node process:
// inside Jest's module sandbox recheck's compiled Scala.js runs about eight
// times slower. Reads [{ source, flags, timeout }] as JSON on stdin and writes
// one Diagnostics per pattern, in order, as JSON on stdout.
import { text } from 'node:stream/consumers';

// read by recheck at each call; 'auto' would start the downloaded native agent
process.env.RECHECK_BACKEND = 'pure';
const { check } = await import('recheck');

const out = [];
for (const { source, flags, timeout } of JSON.parse(await text(process.stdin))) {
  out.push(await check(source, flags, { checker: 'automaton', timeout }));
}
process.stdout.write(JSON.stringify(out));
