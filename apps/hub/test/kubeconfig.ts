/** A kubeconfig in the usual YAML shape, for registration tests. */
export function kubeconfigYaml(opts: { server: string; caData?: string; token?: string; cert?: string; key?: string; context?: string }): string {
  const ctx = opts.context ?? 'test';
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const user = opts.token
    ? `    token: ${opts.token}`
    : `    client-certificate-data: ${b64(opts.cert ?? '')}\n    client-key-data: ${b64(opts.key ?? '')}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${ctx}`,
    'clusters:',
    `- name: ${ctx}-cluster`,
    '  cluster:',
    `    server: ${opts.server}`,
    ...(opts.caData ? [`    certificate-authority-data: ${b64(opts.caData)}`] : []),
    'users:',
    `- name: ${ctx}-user`,
    '  user:',
    user,
    'contexts:',
    `- name: ${ctx}`,
    '  context:',
    `    cluster: ${ctx}-cluster`,
    `    user: ${ctx}-user`,
    '',
  ].join('\n');
}
