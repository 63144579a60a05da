import type { AddUserMessage, DeleteUserMessage, QueryUserExistenceMessage } from '../messages';
import { classifyProvisioning } from './classify';
import type { Outcome } from './outcome';
import { pickDefined } from './pick-defined';
import { type CallOptions, type ClientDeps, PlatformCaller } from './platform-caller';
import type { ProvisioningResponse } from './platform-responses';
import type { HttpSettings, PlatformSettings } from './platform-settings';
import type { ApiKeySource } from './ports';

export type { AttemptInfo, CallOptions, ClientDeps } from './platform-caller';
export type { ProvisioningResponse } from './platform-responses';

export const PROVISIONING_PATH_PREFIX = '/platform-admin/api/users';

export type ProvisioningOperation = 'add-user' | 'query-existence' | 'delete-user';

/**
 * Typed client of the User Provisioning Service. Bodies are the `tenant` object from settings
 * plus the operation's own properties from the message (no `correlationId`, no undefined keys).
 */
export class ProvisioningClient {
  readonly #caller: PlatformCaller;
  readonly #settings: PlatformSettings;

  constructor(
    settings: PlatformSettings,
    apiKey: ApiKeySource,
    http?: Partial<HttpSettings>,
    deps?: ClientDeps,
  ) {
    this.#settings = settings;
    this.#caller = new PlatformCaller(settings, apiKey, http, deps);
  }

  addUser(message: AddUserMessage, options?: CallOptions): Promise<Outcome<ProvisioningResponse>> {
    return this.#call(
      'add-user',
      pickDefined(message, [
        'loginUserId',
        'firstName',
        'lastName',
        'primaryEmailAddr',
        'secondaryEmailAddr',
        'userTemplateName',
        'createInCloudConnect',
      ]),
      options,
    );
  }

  queryExistence(
    message: QueryUserExistenceMessage,
    options?: CallOptions,
  ): Promise<Outcome<ProvisioningResponse>> {
    return this.#call('query-existence', pickDefined(message, ['loginUserId']), options);
  }

  deleteUser(
    message: DeleteUserMessage,
    options?: CallOptions,
  ): Promise<Outcome<ProvisioningResponse>> {
    return this.#call('delete-user', pickDefined(message, ['loginUserId']), options);
  }

  #call(
    operation: ProvisioningOperation,
    fields: Readonly<Record<string, unknown>>,
    options: CallOptions | undefined,
  ): Promise<Outcome<ProvisioningResponse>> {
    const body = {
      tenant: {
        platform: this.#settings.platformCode,
        companyCode: this.#settings.companyCode,
        environment: this.#settings.environmentName,
      },
      ...fields,
    };
    return this.#caller.post(
      operation,
      `${PROVISIONING_PATH_PREFIX}/${operation}`,
      body,
      classifyProvisioning,
      options,
    );
  }
}
