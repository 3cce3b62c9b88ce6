import { EgressPolicy } from '@flotilla/egress';
import { repositoryProblems, serverProblems, sinkProblems } from './address-checks';

const policy = new EgressPolicy({ allow: [], deny: ['*.blocked.example'], allowLoopback: false });

describe('address checks at the edge', () => {
  it('accepts https servers, refuses plain http off loopback and what the policy refuses', () => {
    expect(serverProblems('https://10.0.0.1:6443', 'endpoint.server', policy)).toEqual([]);
    expect(serverProblems('http://10.0.0.1:6443', 'endpoint.server', policy)[0]).toMatch(/^endpoint\.server: plain http:\/\/ would send/);
    expect(serverProblems('ftp://10.0.0.1', 'endpoint.server', policy)).toEqual(['endpoint.server: must be an https:// URL']);
    expect(serverProblems('https://[fe80::1]:6443', 'credentials.kubeconfig server', policy)[0]).toMatch(/^credentials\.kubeconfig server: fe80::1 is a link-local address; /);
    // other spellings of an IPv4 address are the address (URL parsing normalises them)
    for (const spelled of ['https://2852039166', 'https://0xa9.0xfe.0xa9.0xfe', 'https://[::ffff:169.254.169.254]']) {
      expect([spelled, serverProblems(spelled, 'endpoint.server', policy)[0]]).toEqual([spelled, expect.stringMatching(/is a cloud metadata address/)]);
    }
    // a name is judged when it is resolved, at connect time
    expect(serverProblems('https://localhost:6443', 'endpoint.server', policy)).toEqual([]);
  });

  it('refuses a sink header in clear off loopback, and sinks the policy refuses', () => {
    expect(sinkProblems('http://10.0.0.1/e', false, policy)).toEqual([]);
    expect(sinkProblems('http://10.0.0.1/e', true, policy)[0]).toMatch(/^cdeventsSink: plain http:\/\/ would send cdeventsSinkHeader in clear/);
    expect(sinkProblems('https://hooks.blocked.example/e', true, policy)[0]).toMatch(/^cdeventsSink: hooks\.blocked\.example is on the egress deny list/);
  });

  it('checks the registry host of a repository', () => {
    expect(repositoryProblems('oci://registry.example.com:5000/acme/app', policy)).toEqual([]);
    expect(repositoryProblems('oci://169.254.169.254/latest', policy)[0]).toMatch(/^source\.repository: 169\.254\.169\.254 is a cloud metadata address/);
    expect(repositoryProblems('oci://[::1]:5000/app', policy)[0]).toMatch(/^source\.repository: ::1 is loopback/);
  });
});
