/**
 * Test data: samples of every secret the redactor knows, made at test time (sample-template.ts).
 *
 * - RULE_SAMPLES: each rule's own samples, from its `samples` in secret-rules.ts.
 * - COMMON_SECRETS: the common shapes of secrets, written from what each provider issues and without
 *   looking at the rules — so a rule dropped or made weaker than the secrets it is for fails a test
 *   instead of following its samples down.
 */
import { SECRET_RULES } from '../secret-rules.js';
import { expand, seedOf, seededRandom, type Sample } from './sample-template.js';

/** A sample of one rule: the rule's id, the text, and what in it that rule replaces. */
export interface RuleSample extends Sample {
  rule: string;
}

/** Every sample of every rule, the same on every run. */
export const RULE_SAMPLES: readonly RuleSample[] = SECRET_RULES.flatMap((rule) =>
  rule.samples.map((template, i) => ({ rule: rule.id, ...expand(template, seededRandom(seedOf(`${rule.id}#${i}`))) })));

/** Keys joined at run time: the armour of a key block is not written whole in the repository. */
const armour = (edge: 'BEGIN' | 'END', kind: string): string => ['-----', edge, ' ', kind, ' PRIVATE', ' KEY-----'].join('');

/**
 * The common shapes of secrets, by kind, as templates. A bare one is a secret with nothing around it;
 * one with `{{…}}` needs its words (a URL's scheme and host, a variable's name) to be one.
 */
const SHAPES: Record<string, string> = {
  'openai project key': 'sk-proj-<w48>T3Blbk<w50>',
  'openai legacy key': 'sk-<n48>',
  'openai service account key': 'sk-svcacct-<w64>',
  'anthropic key': 'sk-ant-api03-<w93>AA',
  'github classic token': 'ghp_<n36>',
  'github fine-grained token': 'github_pat_<n22>_<n59>',
  'github oauth token': 'gho_<n36>',
  'github app token': 'ghs_<n36>',
  'gitlab token': 'glpat-<w20>',
  'aws access key id': 'AKIA<v16>',
  'aws secret key on its own': '<b40>',
  'aws secret key in a credentials file': 'aws_secret_access_key = {{<b40>}}',
  'slack bot token': 'xoxb-<d11>-<d12>-<n24>',
  'slack user token': 'xoxp-<d11>-<d12>-<d12>-<h32>',
  'slack app token': 'xapp-1-A<u10>-<d13>-<h64>',
  'slack webhook': 'https://{{hooks.slack.com/services/T<u10>/B<u10>/<n24>}}',
  'google api key': 'AIza<w35>',
  'stripe secret key': 'sk_live_<n99>',
  'stripe restricted key': 'rk_live_<n24>',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ<w60>.<w43>',
  'twilio api key': 'SK<h32>',
  'twilio auth token': 'TWILIO_AUTH_TOKEN={{<h32>}}',
  'sendgrid key': 'SG.<w22>.<w43>',
  'npm token': 'npm_<n36>',
  'hugging face token': 'hf_<L34>',
  'databricks token': 'dapi<h32>',
  'digitalocean token': 'dop_v1_<h64>',
  'shopify token': 'shpat_<h32>',
  'pypi token': ['pypi-', 'AgEIcHlwaS5vcmc', '<w120>'].join(''),
  'vault token': 'hvs.<w95>',
  'doppler token': 'dp.pt.<n43>',
  'telegram bot token': '<d10>:AA<w33>',
  'linear key': 'lin_api_<n40>',
  'mailgun key': 'key-<h32>',
  'azure ad client secret': '<n3>8Q~<n34>',
  'azure storage connection string': 'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={{<b86>==}};EndpointSuffix=core.windows.net',
  'azure sas signature': 'https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig={{<n43>%3D}}',
  'azure key': 'AZURE_OPENAI_API_KEY={{<h32>}}',
  'bearer token': 'Authorization: Bearer {{<n40>}}',
  'bearer token in lower case': 'authorization: bearer {{<w20>.<w20>}}',
  'basic auth': 'Authorization: Basic {{<b24>==}}',
  'postgres url': 'postgres://app:{{<n16>}}@db:5432/prod',
  'mysql url': 'mysql://root:{{<n12>}}@127.0.0.1:3306/shop',
  'mongodb url': 'mongodb+srv://svc:{{<n20>}}@cluster0.example.net/db',
  'redis url': 'redis://default:{{<n24>}}@cache:6379',
  'basic auth in a url': 'https://deploy:{{<n14>}}@git.example.com/org/repo.git',
  'password in an env file': 'DB_PASSWORD={{<n12>9}}',
  'private key block': [armour('BEGIN', 'RSA'), '<b64>', '<b64>', '<b22>==', armour('END', 'RSA')].join('\n'),
  'openssh private key block': [armour('BEGIN', 'OPENSSH'), '<b70>', '<b70>', armour('END', 'OPENSSH')].join('\n'),
  'private key body line': 'id_rsa:2:{{<b64>}}',
  'age secret key': 'AGE-SECRET-KEY-1<58:QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L>',
  'perplexity key': 'pplx-<n48>',
  'grafana service account token': 'glsa_<n32>_<h8>',
  'sentry user token': 'sntryu_<h64>',
  'new relic key': 'NRAK-<u27>',
  'pulumi token': 'pul-<h40>',
  'planetscale token': 'pscale_tkn_<w43>',
  'notion token': 'ntn_<d11><n35>',
};

/** The common shapes, made: each with the part that is secret. */
export const COMMON_SECRETS: Readonly<Record<string, Sample>> = Object.fromEntries(
  Object.entries(SHAPES).map(([kind, template]) => [kind, expand(template, seededRandom(seedOf(kind)))]));

/** The bare ones among them, each on one line: secrets that need no words around them. */
export const SAMPLE_SECRETS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(COMMON_SECRETS).filter(([, s]) => s.secret === s.text && !s.text.includes('\n')).map(([kind, s]) => [kind, s.secret]));
