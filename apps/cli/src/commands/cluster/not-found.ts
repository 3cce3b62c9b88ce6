// What a 404 on a cluster means to the user, and what to do.
export const notFound = (name: string) => ({ notFound: `cluster "${name}" not found`, notFoundHint: 'run `flotilla cluster list` to see the registered clusters' });
