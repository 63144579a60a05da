import { describe, expect, it } from 'vitest';
import { platformBaseUrl } from '../../../lambdas/core/platform/base-url';
import { PLATFORM_REGIONS } from '../../../lambdas/core/platform/regions';

describe('platformBaseUrl', () => {
  it('has no region prefix for us-east-1', () => {
    // Prepare
    const host = 'platform.example.com';

    // Act
    const url = platformBaseUrl(host, 'us-east-1');

    // Assess
    expect(url).toBe('https://platform.example.com:9443');
  });

  it.each([
    ['us-west-2', 'https://us-west-2.platform.example.com:9443'],
    ['ca-central-1', 'https://ca-central-1.platform.example.com:9443'],
    ['eu-west-2', 'https://eu-west-2.platform.example.com:9443'],
    ['eu-central-1', 'https://eu-central-1.platform.example.com:9443'],
    ['ap-southeast-1', 'https://ap-southeast-1.platform.example.com:9443'],
    ['ap-southeast-2', 'https://ap-southeast-2.platform.example.com:9443'],
    ['ap-northeast-1', 'https://ap-northeast-1.platform.example.com:9443'],
    ['ap-northeast-2', 'https://ap-northeast-2.platform.example.com:9443'],
    ['af-south-1', 'https://af-south-1.platform.example.com:9443'],
  ])('prefixes the host with %s', (region, expected) => {
    // Prepare
    const host = 'platform.example.com';

    // Act
    const url = platformBaseUrl(host, region);

    // Assess
    expect(url).toBe(expected);
  });

  it('covers every listed region with a valid https URL on port 9443', () => {
    // Prepare
    const host = 'platform.example.com';

    // Act
    const urls = PLATFORM_REGIONS.map((region) => new URL(platformBaseUrl(host, region)));

    // Assess
    expect(urls).toHaveLength(10);
    for (const url of urls) {
      expect(url.protocol).toBe('https:');
      expect(url.port).toBe('9443');
      expect(url.pathname).toBe('/');
    }
  });

  it.each(['eu-west-1', 'us-east-2', 'US-EAST-1', '', 'mars-north-1'])(
    'rejects the unlisted region "%s" naming the allowed ones',
    (region) => {
      // Prepare
      const host = 'platform.example.com';

      // Act
      const build = () => platformBaseUrl(host, region);

      // Assess
      expect(build).toThrow(/not one the platform specs list; use one of us-east-1, us-west-2/);
    },
  );

  it.each([
    'https://platform.example.com',
    'platform.example.com:9443',
    'platform.example.com/path',
    'user@platform.example.com',
    '',
    '-bad.example.com',
  ])('rejects the host "%s" that is not a bare host name', (host) => {
    // Prepare
    const region = 'us-east-1';

    // Act
    const build = () => platformBaseUrl(host, region);

    // Assess
    expect(build).toThrow(/Invalid platform host/);
  });
});
