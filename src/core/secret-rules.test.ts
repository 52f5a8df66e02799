/**
 * The table of secret rules on its own: which rules it has, that each is well formed, and that each
 * finds exactly the secret of each of its samples (made at test time from the rule's templates) —
 * alone, at the start of a line, inside a line, at the end of a text — and only where one of its
 * keywords is, so the keyword prefilter never keeps a rule from a text it would match. How the run's
 * redactor uses the table on every sample, in every encoding: redact-rules.test.ts.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MIN_SECRET_LENGTH, type Span } from './redact.js';
import { SECRET_RULES, type SecretRule } from './secret-rules.js';
import { everyRuleSpans } from './test-support/every-rule.js';
import { RULE_SAMPLES, type RuleSample } from './test-support/secrets.js';

/**
 * The rules, by id. A rule dropped or renamed is a decision to make here as well (the common shapes
 * of test-support/secrets.ts fail too, where the rule was one of theirs).
 */
const IDS = [
  'private-key', 'private-key-body', 'age-secret-key', 'jwt', 'jwt-base64', 'key-base64', 'anthropic-key', 'openai-key', 'perplexity-key', 'cohere-key',
  'huggingface-token', 'github-fine-grained-pat', 'github-token', 'gitlab-pat', 'gitlab-runner-token', 'gitlab-token',
  'gitlab-runner-registration-token', 'gitlab-session-cookie', 'bitbucket-client-id', 'bitbucket-client-secret', 'npm-token', 'pypi-token',
  'rubygems-token', 'clojars-token', 'artifactory-api-key', 'artifactory-reference-token', 'jfrog-key', 'sourcegraph-token', 'codecov-token',
  'droneci-token', 'travisci-token', 'sonar-token', 'snyk-token', 'slack-token', 'slack-app-token', 'slack-webhook', 'microsoft-teams-webhook',
  'discord-webhook', 'discord-key', 'telegram-bot-token', 'mattermost-token', 'gitter-token', 'twitch-token', 'twitter-key',
  'facebook-app-token', 'facebook-page-token', 'facebook-secret', 'linkedin-key', 'messagebird-key', 'intercom-key', 'sendbird-key',
  'sendgrid-key', 'sendinblue-key', 'mailgun-key', 'mailgun-signing-key', 'mailchimp-key', 'twilio-key', 'twilio-auth-token', 'postman-key',
  'linear-key', 'linear-client-secret', 'notion-token', 'readme-key', 'typeform-token', 'frameio-token', 'duffel-token', 'easypost-key',
  'shippo-token', 'stripe-key', 'square-token', 'shopify-token', 'flutterwave-key', 'plaid-key', 'coinbase-token', 'kraken-token',
  'kucoin-key', 'bittrex-key', 'finicity-key', 'finnhub-token', 'gocardless-token', 'lob-key', 'etsy-token', 'squarespace-token',
  'aws-access-key-id', 'aws-secret-after-key-id', 'aws-secret-named', 'aws-secret-bare', 'aws-bedrock-key', 'aws-bedrock-short-term-key',
  'google-api-key', 'azure-ad-client-secret', 'azure-storage-key', 'azure-sas-signature', 'azure-key', 'alibaba-access-key-id',
  'alibaba-secret-key', 'digitalocean-token', 'cloudflare-key', 'cloudflare-origin-ca-key', 'heroku-key', 'heroku-key-v2', 'flyio-token',
  'netlify-token', 'databricks-token', 'terraform-cloud-token', 'vault-token', 'doppler-token', 'pulumi-token', 'planetscale-token',
  'scalingo-token', 'okta-token', 'onepassword-secret-key', 'onepassword-service-account-token', 'infracost-token', 'harness-key',
  'grafana-key', 'grafana-cloud-token', 'grafana-service-account-token', 'sentry-token', 'sentry-key', 'new-relic-key',
  'new-relic-user-api-id', 'datadog-token', 'dynatrace-token', 'sumologic-key', 'launchdarkly-token', 'prefect-token', 'settlemint-token',
  'authress-key', 'cisco-meraki-key', 'defined-networking-token', 'clickhouse-cloud-key', 'octopus-deploy-key', 'openshift-token',
  'kubernetes-secret', 'kubernetes-secret-data-first', 'adafruit-key', 'adobe-client-id', 'adobe-client-secret', 'airtable-key',
  'airtable-token', 'algolia-key', 'asana-key', 'atlassian-token', 'atlassian-token-v2', 'beamer-token', 'confluent-key', 'contentful-token',
  'dropbox-token', 'dropbox-short-lived-token', 'fastly-token', 'flickr-token', 'freshbooks-token', 'hubspot-key', 'intra42-secret',
  'looker-key', 'mapbox-token', 'maxmind-license-key', 'nytimes-token', 'privateai-token', 'rapidapi-token', 'yandex-key', 'zendesk-key',
  'sidekiq-secret', 'url-password', 'authorization', 'authorization-header', 'curl-auth-user', 'nuget-config-password', 'freemius-secret-key',
  'password', 'generic-secret',
];

/** Rules for a shape that takes lines of its own (a key block's body line, a YAML document). */
const LINE_BOUND = new Set(['private-key-body', 'kubernetes-secret', 'kubernetes-secret-data-first']);

/** Where a sample stands: how the text around it is written. */
const CONTEXTS: Record<string, (text: string) => string> = {
  alone: (text) => text,
  'at a line start': (text) => `# keys\n${text}\nthe next line`,
  'inside a line': (text) => `the key is ${text} (rotated daily)`,
  'at the end of a text': (text) => `export\n${text}`,
};

/** What one rule, compiled as the redactor compiles it, takes in a text: each match's secret and the whole match. */
function ruleMatches(rule: SecretRule, text: string): { secret: Span; match: string }[] {
  const out: { secret: Span; match: string }[] = [];
  for (const match of text.matchAll(new RegExp(rule.source, `gd${rule.flags ?? ''}`))) {
    const indices = match.indices as RegExpIndicesArray;
    let secret = indices[0] as [number, number];
    for (let g = rule.group ?? 0; g > 0 && g < indices.length; g++) {
      const taken = indices[g];
      if (taken !== undefined) {
        secret = taken;
        break;
      }
    }
    out.push({ secret: [secret[0], secret[1]], match: match[0] });
  }
  return out;
}

function occurrences(text: string, part: string): Span[] {
  const out: Span[] = [];
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) out.push([at, at + part.length]);
  return out;
}

const ruleById = (id: string): SecretRule => {
  const rule = SECRET_RULES.find((r) => r.id === id);
  if (rule === undefined) throw new Error(`no rule ${id}`);
  return rule;
};

/** A key block cut before its END: redacted to the end of the text, so it is tried only where the text ends with it. */
const cutShort = (sample: RuleSample): boolean => sample.rule === 'private-key' && !sample.text.includes('-----END');

const named = RULE_SAMPLES.map((sample, i) => [`${sample.rule} #${i}`, sample] as const);

describe('the table of secret rules', () => {
  it('has the rules it is meant to have, each once', () => {
    expect(SECRET_RULES.map((r) => r.id)).toEqual(IDS);
  });

  it('has rules that compile, with lower-case ASCII keywords and samples', () => {
    for (const rule of SECRET_RULES) {
      expect(() => new RegExp(rule.source, `gd${rule.flags ?? ''}`), rule.id).not.toThrow();
      expect(rule.samples.length, rule.id).toBeGreaterThan(0);
      for (const keyword of rule.keywords) expect(keyword, rule.id).toMatch(/^[\x20-\x40\x5b-\x7e]+$/);
      if (rule.unless !== undefined) expect(() => new RegExp(rule.unless as string, 'i'), rule.id).not.toThrow();
    }
  });

  it(`has no rule that matches fewer than ${MIN_SECRET_LENGTH} characters (the redactor skips a shorter text)`, () => {
    const piece = fc.oneof(fc.constantFrom(...SECRET_RULES.flatMap((rule) => rule.keywords)), fc.string({ maxLength: 3 }), fc.constantFrom(':', '@', '=', '\n', ' ', '|'));
    const short = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join('').slice(0, MIN_SECRET_LENGTH - 1));
    fc.assert(fc.property(short, (text) => {
      expect(everyRuleSpans(text)).toEqual([]);
    }), { numRuns: 3000 });
    // The shortest shapes there are: a password in a URL, a user's password on a curl command line.
    expect(everyRuleSpans('ab://:x@').length).toBe(1);
  });

  it('has samples that hold what they say is secret, and no two alike', () => {
    for (const sample of RULE_SAMPLES) expect(sample.text, sample.rule).toContain(sample.secret);
    expect(new Set(RULE_SAMPLES.map((s) => s.secret)).size).toBe(RULE_SAMPLES.length);
  });
});

describe('each secret rule on its own', () => {
  it.each(named)('%s: finds exactly the secret, wherever the text stands', (_name, sample: RuleSample) => {
    const rule = ruleById(sample.rule);
    for (const [where, wrap] of Object.entries(CONTEXTS)) {
      if (where === 'inside a line' && LINE_BOUND.has(rule.id)) continue;
      if (cutShort(sample) && !wrap(sample.text).endsWith(sample.text)) continue;
      const text = wrap(sample.text);
      expect(ruleMatches(rule, text).map((m) => m.secret), `${where}: ${JSON.stringify(text)}`).toEqual(occurrences(text, sample.secret));
    }
  });

  it.each(named)('%s: needs one of the rule\'s keywords (the prefilter lets it run wherever it would match)', (_name, sample: RuleSample) => {
    const rule = ruleById(sample.rule);
    if (rule.keywords.length === 0) {
      // A rule without keywords is tried where a run of 40 base64 characters starts: each match is one.
      for (const { match } of ruleMatches(rule, sample.text)) expect(match, rule.id).toMatch(/^[A-Za-z0-9+/]{40}/);
      return;
    }
    // Each keyword spelled otherwise (its characters replaced), the rule finds nothing.
    let blind = sample.text;
    for (const keyword of rule.keywords) blind = blind.replace(new RegExp(keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), (k) => '\u0001'.repeat(k.length));
    expect(blind, rule.id).not.toBe(sample.text);
    expect(ruleMatches(rule, blind), rule.id).toEqual([]);
  });
});
