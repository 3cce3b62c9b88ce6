/**
 * Replaces namespace and object names in an API path by placeholders, so request metrics
 * are labelled by resource rather than by object: `/api/v1/namespaces/{namespace}/secrets/{name}`.
 */
export function apiPathTemplate(path: string): string {
  const p = path.split('?')[0];
  const parts = p.split('/').filter(Boolean);
  // prefix: api/<v> or apis/<g>/<v>
  const prefixLen = parts[0] === 'api' ? 2 : parts[0] === 'apis' ? 3 : parts.length;
  if (parts.length <= prefixLen) return p || '/';
  const out = parts.slice(0, prefixLen);
  let rest = parts.slice(prefixLen);
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    out.push('namespaces', '{namespace}');
    rest = rest.slice(2);
    if (rest.length === 0) return '/' + out.join('/');
  }
  out.push(rest[0]);
  if (rest.length >= 2) out.push('{name}', ...rest.slice(2));
  return '/' + out.join('/');
}
