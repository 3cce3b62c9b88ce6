// A CDEvents sink as its own process (node test/e2e/support/cdevents-sink-server.js <port>):
// prints `listening <port>` once up, then one JSON line per request
// ({ headers, body }) and answers 202. It knows nothing of Flotilla.
const { createServer } = require('node:http');

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    process.stdout.write(`${JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })}\n`);
    res.writeHead(202, { 'content-type': 'text/plain' });
    res.end('accepted');
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
