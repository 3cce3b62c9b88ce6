import { parseReference } from '@flotilla/oci';
import { OCI_REPOSITORY } from './projects.dto';

// What the API takes as `source.repository` is what the registry client can
// read, with the registry named: a repository the DTO lets through must never
// fail later in the hub (the fuzzer once found a 500 where the two disagreed).
describe('OCI_REPOSITORY', () => {
  const accepted = [
    'oci://ghcr.io/acme/platform',
    'oci://GHCR.io/acme/platform',
    'oci://127.0.0.1:5000/flotilla/web',
    'oci://registry:5000/a',
    'oci://localhost/a/b',
    'oci://localhost:5000/a__b/c---d/e.f_g',
  ];
  const refused = [
    'oci://-0Uysm6KZfK-EdA/v7rr_drr00/x', // no registry named: the client would read a Docker Hub path with capitals
    'oci://acme/platform', // the same without capitals: Docker Hub, not a host
    'oci://ghcr.io', // no path
    'oci://ghcr.io/Acme/platform',
    'oci://ghcr.io/acme/-platform',
    'oci://ghcr.io/acme/platform:latest',
    'oci://ghcr..io/acme',
    'oci://ghcr.io:123456/acme',
    'https://ghcr.io/acme',
  ];

  it.each(accepted)('accepts %s, and the registry client reads it with that host', (repo) => {
    expect(OCI_REPOSITORY.test(repo)).toBe(true);
    const ref = parseReference(repo);
    expect(ref.registry).toBe(repo.slice('oci://'.length, repo.indexOf('/', 'oci://'.length)).toLowerCase());
  });

  it.each(refused)('refuses %s', (repo) => {
    expect(OCI_REPOSITORY.test(repo)).toBe(false);
  });
});
