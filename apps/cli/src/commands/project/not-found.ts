// What a 404 on a Project means to the user, and what to do.
export const notFound = (name: string) => ({ notFound: `project "${name}" not found`, notFoundHint: 'run `flotilla project list` to see the Projects' });
