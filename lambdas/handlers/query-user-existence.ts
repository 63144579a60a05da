// Placeholder entry point until the handler is built (issue 3); keeps the CDK app bundleable.
export const handler = async (): Promise<never> => {
  throw new Error('query-user-existence: handler not implemented yet');
};
