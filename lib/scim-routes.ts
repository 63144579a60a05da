/**
 * Where the SCIM endpoint lives under its API: the stack and the local endpoint
 * (`npm start -- --scim`) take the path from here. No CDK import, so local code loads it cheaply.
 */

/** Where SCIM lives under the stage: `https://…/<stage>/scim/v2`. */
export const SCIM_BASE_PATH = 'scim/v2';

/** The stage name: part of the URL the IdP is given. */
export const SCIM_STAGE_NAME = 'prod';
