/**
 * The deployed SCIM endpoint as a client reaches it: the stack's URL
 * (`https://<api>.execute-api.<region>.amazonaws.com/prod/scim/v2`) is served by MiniStack on its
 * one port as `/_aws/execute-api/<api>/prod/scim/v2`, over its own certificate.
 */
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

/** The base URL MiniStack serves `stackUrl` (the stack's SCIM URL output) under. */
export const scimBaseUrl = (emulatorEndpoint: string, stackUrl: string): string => {
  const url = new URL(stackUrl);
  const [apiId] = url.hostname.split('.');
  if (apiId === undefined || apiId === '') throw new Error(`no API id in ${url.href}`);
  return `${emulatorEndpoint}/_aws/execute-api/${apiId}${url.pathname.replace(/\/$/, '')}`;
};

/**
 * Makes this test process's `fetch` trust the emulator's certificate (fetch takes no CA of its
 * own), as the functions MiniStack runs do through NODE_EXTRA_CA_CERTS.
 */
export const trustEmulatorCertificate = (caCertificate: string): void => {
  setDefaultCACertificates([...getCACertificates('default'), caCertificate]);
};
