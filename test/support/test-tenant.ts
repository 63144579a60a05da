/**
 * The platform tenant the tests set their functions, clients and simulators up for: the values
 * of the X-sc headers and of every realtime request's tenant properties.
 */
export const TEST_TENANT = {
  platformCode: 'TESTPLATFORM',
  companyCode: 'acme',
  environmentName: 'qa',
} as const;
