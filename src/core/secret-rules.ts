/**
 * The secrets agentctl redacts everywhere, whatever the configuration says: one table of rules, each
 * an id, the literal keywords one of which every match holds, a regular expression, and how a sample
 * of it is written. The providers and shapes follow gitleaks' default rule set (github.com/gitleaks/
 * gitleaks, config/gitleaks.toml) and add what an agent's transcript holds besides: passwords in URLs
 * and connection strings, Azure keys and signatures, an AWS secret key on its own, the body of a PEM
 * key without its BEGIN and END lines. The expressions are agentctl's own, written for redaction:
 * a token takes its whole run, not a fixed prefix of it.
 *
 * How a rule is used (redact.ts): it runs only on a text that holds one of its `keywords` (ASCII,
 * any case) — one pass over the text finds them all (keyword-index.ts), so a text without any costs
 * no rule a scan — and on the text as it reads (text-readings.ts: JSON escapes decoded, terminal
 * colour codes dropped), so a rule is written for plain text: a key at the start of a line stands
 * after a line break, not after `\n`. A match is a secret when its `group` (all of it by default)
 * has at least the rule's `entropy` and the match does not fit `unless`.
 *
 * `samples` are templates the tests expand with random characters (test-support/sample-template.ts):
 * `<n36>` is 36 characters of kind `n`, `<8:abc>` 8 drawn from `abc`, and `{{…}}` marks the part that
 * is the secret (all of the text without it) — so the samples are no key-shaped literals a secret
 * scanner would flag in this file.
 */

export interface SecretRule {
  readonly id: string;
  /** Literals (lower case) one of which every match of the rule holds, in any case; the rule runs only where one is. */
  readonly keywords: readonly string[];
  /** The regular expression (JavaScript); run with `g`, `d` and `flags`. */
  readonly source: string;
  readonly flags?: string;
  /**
   * The capture group that is the secret — or, where the match did not take part in it, the first
   * later group that did (a rule with alternatives); none, or absent: the whole match.
   */
  readonly group?: number;
  /** The least Shannon entropy (bits a character) of the secret, for shapes that ordinary text takes too. */
  readonly entropy?: number;
  /**
   * Not a secret where this expression (case-insensitive) matches the match together with the name
   * it continues (the word characters, dots and dashes right before it): a name or a value that only
   * looks like a secret's.
   */
  readonly unless?: string;
  /** How samples are written (see the top of this file): at least one per alternative the rule has. */
  readonly samples: readonly string[];
}

/** Not right after a letter, digit or underscore: where a key's prefix may start. */
const START = String.raw`(?<!\w)`;
/** Where a value named by its provider ends: not inside a longer run of value characters. */
const END = String.raw`(?![\w.=+/~-])`;
/** Between a provider's name and the value: the rest of the name (`_API_KEY`), quotes, and an assignment (`=`, `:`, `=>`, `:=`…). */
const ASSIGN = String.raw`[\w.-]{0,20}[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}`;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID_SAMPLE = '<h8>-<h4>-<h4>-<h4>-<h12>';

const escape = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
const any = (literals: readonly string[]): string => `(?:${literals.map(escape).join('|')})`;
/** A word in any case of its first letter or all capitals (`Bearer`, `bearer`, `BEARER`): case-sensitive elsewhere. */
const word = (text: string): string => `(?:[${text[0]?.toUpperCase()}${text[0]}]${text.slice(1)}|${text.toUpperCase()})`;

/** A PEM block's template, its armour written in pieces so that no scanner takes this file for a key. */
const pem = (kind: string, body: string, end = true): string =>
  ['-----BEGIN ', kind, ' PRIVATE KEY', kind === 'PGP' ? ' BLOCK' : '', '-----\n', body, end ? ['\n-----END ', kind, ' PRIVATE KEY', kind === 'PGP' ? ' BLOCK' : '', '-----'].join('') : ''].join('');

/**
 * What the generic rule takes that is no secret: counts and limits (`max_tokens`), ids, names, paths
 * and URLs of keys and tokens, public keys, words that hold a keyword (`author`, `monkey`), a digest
 * under a bare `key` (a cache's, a call's).
 */
const GENERIC_NOT_SECRET = String.raw`^(?:[\w.-]*(?:public|publishable|primary|foreign|sort|partition|cache|idempotency|sequence|bucket|schema)[_.-]?key|[\w.-]*key[_.-]?(?:ids?|names?|path|file|size|length|type|code|word|board|pair|ring|store|hash|prefix|alias|version|vault)|[\w.-]*(?:token|api|secret|auth|access|credentials?)[_.-]?(?:ids?|names?|url|uri|endpoint|path|file|type|version|count|limit|budget|length|size|expiry|expires(?:_at|_in)?|ttl)|[\w.-]*tokens|[\w.-]*tokeniz\w*|author\w*|[\w.-]*access(?:ibility|or|ed|ible)|csrf[_.-]?token|\w*onkey|turkey|key\W+[0-9a-f]{32,}$)\b`;

type Extra = Partial<Pick<SecretRule, 'flags' | 'group' | 'entropy' | 'unless'>>;

/** A rule as written. */
const rule = (id: string, keywords: readonly string[], source: string, samples: readonly string[], extra: Extra = {}): SecretRule =>
  ({ id, keywords, source, samples, ...extra });

/** A token known by its prefix (one of `prefixes`, a keyword each), then `body`. */
const prefixed = (id: string, prefixes: readonly string[], body: string, samples: readonly string[], extra: Extra = {}): SecretRule =>
  rule(id, prefixes.map((p) => p.toLowerCase()), `${START}${any(prefixes)}${body}`, samples, extra);

/**
 * A value known by the provider's name before it (`ADAFRUIT_KEY = "…"`, `"adafruit": "…"`): the name
 * (any case), an assignment, and a value of the provider's shape.
 */
const named = (id: string, names: readonly string[], value: string, values: readonly string[], extra: Extra = {}): SecretRule =>
  rule(id, names, `${any(names)}${ASSIGN}(${value})${END}`, values.map((v) => `${names[0]}_key = "{{${v}}}"`), { flags: 'i', group: 1, ...extra });

export const SECRET_RULES: readonly SecretRule[] = [
  // Keys and key blocks. A block cut before its END (a text cut short) is redacted to the end of the text.
  rule('private-key', ['-----begin'], '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[\\s\\S]*$)', [
    pem('RSA', '<b64>\n<b64>\n<b20>='), pem('OPENSSH', '<b70>\n<b12>=='), pem('PGP', '\n<b64>\n=<b4>'), pem('ENCRYPTED', '<b64>\n<b30>', false),
  ]),
  // A key block's lines without its BEGIN and END (as a search prints the lines that match): 64 base64
  // characters alone on a line (or a quoted string), with a capital, a small letter and a digit (each `(?![…]{64})` says
  // the line is not all of the other kinds: linear, where a search for one backtracks) and high
  // entropy (a hex digest has at most 4 bits).
  rule('private-key-body', [], String.raw`(?<![^\s:"'])(?![a-z0-9+/]{64})(?![A-Z0-9+/]{64})(?![A-Za-z+/]{64})[A-Za-z0-9+/]{64}(?=\r?\n|["']|$)`, ['<b64>', 'key.pem:2:{{<b64>}}'], { entropy: 4.5 }),
  rule('age-secret-key', ['age-secret-key-1'], 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}', ['AGE-SECRET-KEY-1<58:QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L>']),
  rule('jwt', ['ey'], `${START}ey[A-Za-z0-9_-]{17,}\\.ey[A-Za-z0-9/_-]{17,}\\.(?:[A-Za-z0-9/_-]{10,}={0,2})?`, ['eyJ<w30>.eyJ<w60>.<w43>', 'eyJ<w30>.eyJ<w40>.']),
  prefixed('jwt-base64', ['ZXlK'], '[A-Za-z0-9+/]{40,}={0,2}', ['ZXlK<b80>==']),
  // A provider's key sent base64-encoded (a Basic credential, a config blob): the encoding of its
  // prefix (sk-proj-, sk-svcacct-, sk-admin-, sk-ant-, ghp_, github_pat_, AKIA) as far as it does not
  // depend on the characters after it.
  prefixed('key-base64', ['c2stcHJvai', 'c2stc3ZjYWNjdC', 'c2stYWRtaW4t', 'c2stYW50L', 'Z2hwX', 'Z2l0aHViX3BhdF', 'QUtJQ'], '[A-Za-z0-9+/]{20,}={0,2}', [
    'c2stcHJvai<b60>', 'Z2hwX<b51>=', 'QUtJQ<b23>=',
  ]),

  // Model providers.
  prefixed('anthropic-key', ['sk-ant-'], String.raw`(?:api|admin|sid)\d{2}-[A-Za-z0-9_-]{20,}`, ['sk-ant-api03-<w93>AA', 'sk-ant-admin01-<w93>AA']),
  prefixed('openai-key', ['sk-'], '[A-Za-z0-9_-]{8,}', ['sk-proj-<w74>T3BlbkFJ<w74>', 'sk-<n20>T3BlbkFJ<n20>', 'sk-svcacct-<w60>', 'sk-<n48>']),
  prefixed('perplexity-key', ['pplx-'], '[A-Za-z0-9]{48}', ['pplx-<n48>']),
  named('cohere-key', ['cohere', 'co_api_key'], '[a-z0-9]{40}', ['<n40>'], { entropy: 3 }),
  prefixed('huggingface-token', ['hf_', 'api_org_'], '[A-Za-z]{34}', ['hf_<L34>', 'api_org_<L34>']),

  // Code hosting and package registries.
  prefixed('github-fine-grained-pat', ['github_pat_'], '[A-Za-z0-9_]{22,255}', ['github_pat_<n22>_<n59>']),
  rule('github-token', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], `${START}gh[pousr]_[A-Za-z0-9]{36,255}`, ['ghp_<n36>', 'gho_<n36>', 'ghu_<n36>', 'ghs_<n36>', 'ghr_<n76>']),
  prefixed('gitlab-pat', ['glpat-'], String.raw`[\w-]{20,}(?:\.[0-9a-z]{9})?`, ['glpat-<w20>', 'glpat-<w27>.01<l7>']),
  prefixed('gitlab-runner-token', ['glrt-'], String.raw`(?:t\d_)?[\w-]{20,}(?:\.[0-9a-z]{9})?`, ['glrt-<w20>', 'glrt-t1_<w27>.01<l7>']),
  prefixed('gitlab-token', ['glptt-', 'gldt-', 'glft-', 'glsoat-', 'glffct-', 'glimt-', 'glagent-', 'gloas-', 'glcbt-'], String.raw`[\w-]{20,}`, [
    'glptt-<h40>', 'gldt-<w20>', 'glft-<w20>', 'glsoat-<w20>', 'glffct-<w20>', 'glimt-<w25>', 'glagent-<w50>', 'gloas-<w64>', 'glcbt-<n3>_<w20>',
  ]),
  prefixed('gitlab-runner-registration-token', ['GR1348941'], String.raw`[\w-]{20,}`, ['GR1348941<w20>']),
  rule('gitlab-session-cookie', ['_gitlab_session='], '_gitlab_session=([0-9a-z]{32})', ['_gitlab_session={{<l32>}}'], { group: 1 }),
  named('bitbucket-client-id', ['bitbucket'], '[a-z0-9]{32}', ['<l32>']),
  named('bitbucket-client-secret', ['bitbucket'], '[a-z0-9=_-]{64}', ['<w64>']),
  prefixed('npm-token', ['npm_'], '[A-Za-z0-9]{36}', ['npm_<n36>']),
  prefixed('pypi-token', ['pypi-AgEIcHlwaS5vcmc', 'pypi-AgENdGVzdC5weXBpLm9yZw'], String.raw`[\w-]{50,}`, ['pypi-AgEIcHlwaS5vcmc<w70>', 'pypi-AgENdGVzdC5weXBpLm9yZw<w70>']),
  prefixed('rubygems-token', ['rubygems_'], '[a-f0-9]{48}', ['rubygems_<h48>']),
  rule('clojars-token', ['clojars_'], `${START}CLOJARS_[a-z0-9]{60}`, ['CLOJARS_<l60>'], { flags: 'i' }),
  prefixed('artifactory-api-key', ['AKCp'], '[A-Za-z0-9]{69}', ['AKCp<n69>']),
  prefixed('artifactory-reference-token', ['cmVmd'], '[A-Za-z0-9]{59}', ['cmVmd<n59>']),
  named('jfrog-key', ['jfrog', 'artifactory', 'bintray', 'xray'], '[a-z0-9]{73}|[a-z0-9]{64}', ['<l73>', '<l64>']),
  prefixed('sourcegraph-token', ['sgp_'], '(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}', ['sgp_<h16>_<h40>', 'sgp_local_<h40>', 'sgp_<h40>']),
  named('codecov-token', ['codecov'], '[a-z0-9]{32}', ['<l32>']),
  named('droneci-token', ['droneci'], '[a-z0-9]{32}', ['<l32>']),
  named('travisci-token', ['travis'], '[a-z0-9]{22}', ['<l22>']),
  rule('sonar-token', ['squ_', 'sqp_', 'sqa_', 'sonar'], String.raw`${START}sq[upa]_[a-f0-9]{40}|sonar[_.-]?(?:login|token)${ASSIGN}([a-z0-9=_-]{40})${END}`, ['squ_<h40>', 'sonar_token = "{{<l40>}}"'], { flags: 'i', group: 1 }),
  named('snyk-token', ['snyk'], UUID, [UUID_SAMPLE]),

  // Chat and messaging.
  rule('slack-token', ['xoxa-', 'xoxb-', 'xoxe-', 'xoxo-', 'xoxp-', 'xoxr-', 'xoxs-', 'xoxe.'], `${START}(?:xoxe\\.)?xox[abeoprs]-[A-Za-z0-9-]{10,}`, [
    'xoxb-<d12>-<d13>-<n24>', 'xoxp-<d12>-<d12>-<d12>-<h32>', 'xoxa-2-<n40>', 'xoxr-<n40>', 'xoxe-1-<u146>', 'xoxe.xoxp-1-<u164>',
    'xoxo-<d12>-<d13>-<d13>-<h12>', 'xoxs-<d12>-<d13>-<d13>-<h14>',
  ]),
  prefixed('slack-app-token', ['xapp-'], String.raw`\d-[A-Z0-9]+-\d+-[a-z0-9]+`, ['xapp-1-<u11>-<d13>-<h64>'], { flags: 'i' }),
  // gitleaks stops at 56 characters, enough to find one; a redactor takes the whole path (a
  // workflow's or a trigger's is longer, and its secret is at its end).
  rule('slack-webhook', ['hooks.slack.com'], 'hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,}', [
    'https://{{hooks.slack.com/services/T<u8>/B<u8>/<n24>}}', 'https://{{hooks.slack.com/workflows/T<u8>/A<u8>/<d18>/<n24>}}', 'https://{{hooks.slack.com/triggers/T<u10>/<d13>/<h32>}}',
  ]),
  rule('microsoft-teams-webhook', ['webhook.office.com'], String.raw`[a-z0-9-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,}`, [
    'https://{{contoso.webhook.office.com/webhookb2/<h8>-<h4>-<h4>-<h4>-<h12>@<h8>-<h4>-<h4>-<h4>-<h12>/IncomingWebhook/<h32>/<h8>-<h4>-<h4>-<h4>-<h12>}}',
  ], { flags: 'i' }),
  rule('discord-webhook', ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'], String.raw`discord(?:app)?\.com/api/webhooks/\d+/[\w-]{60,}`, ['https://{{discord.com/api/webhooks/<d18>/<w68>}}']),
  named('discord-key', ['discord'], '[a-f0-9]{64}|[0-9]{18}|[a-z0-9=_-]{32}', ['<h64>', '<d18>', '<w32>']),
  rule('telegram-bot-token', [':aa', 'telegr'], String.raw`${START}\d{8,10}:AA[\w-]{33}(?![\w-])|telegr${ASSIGN}(\d{5,16}:A[\w-]{34})${END}`, ['<d10>:AA<w33>', 'telegram_key = "{{<d9>:A<w34>}}"'], { flags: 'i', group: 1 }),
  named('mattermost-token', ['mattermost'], '[a-z0-9]{26}', ['<l26>']),
  named('gitter-token', ['gitter'], '[a-z0-9_-]{40}', ['<w40>']),
  named('twitch-token', ['twitch'], '[a-z0-9]{30}', ['<l30>']),
  named('twitter-key', ['twitter'], '[a-z0-9]{25}|[a-z0-9]{45}|[a-z0-9]{50}|[0-9]{15,25}-[a-z0-9]{20,40}|A{22}[a-z0-9%]{80,100}', ['<n25>', '<n45>', '<n50>', '<d19>-<n40>', 'AAAAAAAAAAAAAAAAAAAAAA<n90>']),
  // An app token is the app's id (public), `|` and its secret: the match starts at the `|` (a
  // literal to search for is many times faster to find than digits are), the id checked behind it.
  rule('facebook-app-token', ['|', '%7c'], String.raw`(?:\||%7C)(?<=(?<![\w])\d{15,16}(?:\||%7C))[0-9a-z_-]{27,40}`, ['<d15>{{|<w32>}}', '<d16>{{%7C<w40>}}'], { flags: 'i' }),
  prefixed('facebook-page-token', ['EAAM', 'EAAC'], '[a-z0-9]{100,}', ['EAAM<n120>', 'EAAC<n110>'], { flags: 'i' }),
  named('facebook-secret', ['facebook'], '[a-f0-9]{32}', ['<h32>']),
  named('linkedin-key', ['linkedin', 'linked_in', 'linked-in'], '[a-z0-9]{14}|[a-z0-9]{16}', ['<l14>', '<l16>']),
  named('messagebird-key', ['messagebird', 'message_bird', 'message-bird'], `[a-z0-9]{25}|${UUID}`, ['<l25>', UUID_SAMPLE]),
  named('intercom-key', ['intercom'], '[a-z0-9=_-]{60}', ['<w60>']),
  named('sendbird-key', ['sendbird'], `${UUID}|[a-f0-9]{40}`, [UUID_SAMPLE, '<h40>']),
  prefixed('sendgrid-key', ['SG.'], String.raw`[\w.=-]{66}`, ['SG.<w22>.<w43>']),
  prefixed('sendinblue-key', ['xkeysib-'], '[a-f0-9]{64}-[a-z0-9]{16}', ['xkeysib-<h64>-<l16>'], { flags: 'i' }),
  prefixed('mailgun-key', ['key-', 'pubkey-'], '[a-f0-9]{32}', ['key-<h32>', 'pubkey-<h32>']),
  named('mailgun-signing-key', ['mailgun'], '[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}', ['<h32>-<h8>-<h8>']),
  rule('mailchimp-key', ['-us'], `${START}[a-f0-9]{32}-us\\d{1,2}(?!\\w)`, ['<h32>-us14']),
  rule('twilio-key', ['sk'], `${START}SK[0-9a-fA-F]{32}`, ['SK<h32>']),
  named('twilio-auth-token', ['twilio'], '[a-f0-9]{32}', ['<h32>']),
  prefixed('postman-key', ['PMAK-'], '[a-f0-9]{24}-[a-f0-9]{34}', ['PMAK-<h24>-<h34>'], { flags: 'i' }),
  prefixed('linear-key', ['lin_api_'], '[a-z0-9]{40}', ['lin_api_<n40>'], { flags: 'i' }),
  named('linear-client-secret', ['linear'], '[a-f0-9]{32}', ['<h32>']),
  rule('notion-token', ['ntn_', 'secret_'], `${START}(?:ntn_\\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})(?!\\w)`, ['ntn_<d11><n35>', 'secret_<n43>']),
  prefixed('readme-key', ['rdme_'], '[a-z0-9]{70}', ['rdme_<l70>']),
  prefixed('typeform-token', ['tfp_'], String.raw`[\w.=-]{59}`, ['tfp_<w59>'], { flags: 'i' }),
  prefixed('frameio-token', ['fio-u-'], String.raw`[\w=-]{64}`, ['fio-u-<w64>'], { flags: 'i' }),
  prefixed('duffel-token', ['duffel_test_', 'duffel_live_'], String.raw`[\w=-]{43}`, ['duffel_test_<w43>', 'duffel_live_<w43>'], { flags: 'i' }),
  prefixed('easypost-key', ['EZAK', 'EZTK'], '[a-z0-9]{54}', ['EZAK<l54>', 'EZTK<l54>'], { flags: 'i' }),
  prefixed('shippo-token', ['shippo_live_', 'shippo_test_'], '[a-fA-F0-9]{40}', ['shippo_live_<h40>', 'shippo_test_<H40>']),
  rule('stripe-key', ['sk_test_', 'sk_live_', 'sk_prod_', 'rk_test_', 'rk_live_', 'rk_prod_'], `${START}[sr]k_(?:test|live|prod)_[A-Za-z0-9]{10,99}`, [
    'sk_live_<n24>', 'rk_live_<n24>', 'sk_test_<n99>', 'rk_prod_<n24>',
  ]),
  prefixed('square-token', ['EAAA', 'sq0atp-', 'sq0csp-'], String.raw`[\w-]{22,60}`, ['EAAA<w60>', 'sq0atp-<w22>', 'sq0csp-<w43>']),
  prefixed('shopify-token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], '[a-fA-F0-9]{32}', ['shpat_<h32>', 'shpca_<h32>', 'shppa_<h32>', 'shpss_<h32>']),
  rule('flutterwave-key', ['flwseck', 'flwpubk'], `${START}FLW(?:SECK|PUBK)(?:_TEST)?-[a-h0-9]{12,32}(?:-X)?`, ['FLWSECK_TEST-<h32>-X', 'FLWPUBK_TEST-<h32>-X', 'FLWSECK_TEST-<h12>'], { flags: 'i' }),
  named('plaid-key', ['plaid'], `access-(?:sandbox|development|production)-${UUID}|[a-z0-9]{24}|[a-z0-9]{30}`, [`access-sandbox-${UUID_SAMPLE}`, '<l24>', '<l30>']),
  named('coinbase-token', ['coinbase'], '[a-z0-9_-]{64}', ['<w64>']),
  named('kraken-token', ['kraken'], '[a-z0-9/=_+-]{80,90}', ['<b88>']),
  named('kucoin-key', ['kucoin'], `[a-f0-9]{24}|${UUID}`, ['<h24>', UUID_SAMPLE]),
  named('bittrex-key', ['bittrex'], '[a-z0-9]{32}', ['<l32>']),
  named('finicity-key', ['finicity'], '[a-f0-9]{32}|[a-z0-9]{20}', ['<h32>', '<l20>']),
  named('finnhub-token', ['finnhub'], '[a-z0-9]{20}', ['<l20>']),
  named('gocardless-token', ['gocardless'], String.raw`live_[\w=-]{40}`, ['live_<w40>']),
  named('lob-key', ['lob'], '(?:live|test)_(?:pub_[a-f0-9]{31}|[a-f0-9]{35})', ['live_<h35>', 'test_pub_<h31>']),
  named('etsy-token', ['etsy'], '[a-z0-9]{24}', ['<l24>']),
  named('squarespace-token', ['squarespace'], UUID, [UUID_SAMPLE]),

  // Cloud and infrastructure.
  rule('aws-access-key-id', ['akia', 'asia', 'abia', 'acca', 'a3t'], `${START}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\\b`, ['AKIA<v16>', 'ASIA<v16>', 'ABIA<v16>', 'ACCA<v16>', 'A3TX<v16>']),
  // An AWS secret key right after its access key id (as in a credentials line)…
  rule('aws-secret-after-key-id', ['akia', 'asia', 'abia', 'acca', 'a3t'], String.raw`${START}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}[\s,:;|"'=]{1,10}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, [
    'AKIA<v16>:{{<b40>}}', 'ASIA<v16>,{{<b40>}}', '["ACCA<v16>", "{{<b40>}}"]', 'A3TX<v16> = {{<b40>}}',
  ], { group: 1 }),
  // …or named as one (aws_secret_access_key = …, "SecretAccessKey": "…")…
  rule('aws-secret-named', ['secret_access_key', 'secretaccesskey'], String.raw`secret_?access_?key["'\s]*[:=]["'\s]*([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, [
    'aws_secret_access_key = {{<b40>}}', 'AWS_SECRET_ACCESS_KEY={{<b40>}}', '{"AccessKeyId": "x", "SecretAccessKey": "{{<b40>}}"}',
  ], { flags: 'i', group: 1 }),
  // …or on its own: 40 base64 characters standing alone, of several kinds (a hex digest is one kind) and high entropy.
  rule('aws-secret-bare', [], String.raw`(?<![A-Za-z0-9+/=])(?![a-z0-9+/]{40})(?![A-Z0-9+/]{40})(?![A-Za-z+/]{40})[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])`, ['<b40>'], { entropy: 4.2 }),
  prefixed('aws-bedrock-key', ['ABSK'], '[A-Za-z0-9+/]{109,269}={0,2}', ['ABSK<b132>']),
  prefixed('aws-bedrock-short-term-key', ['bedrock-api-key-'], String.raw`YmVkcm9jay5hbWF6b25hd3MuY29t[\w+/=%&?.-]*`, ['bedrock-api-key-' + 'YmVkcm9jay5hbWF6b25hd3MuY29t<b120>']),
  prefixed('google-api-key', ['AIza'], String.raw`[\w-]{35}`, ['AIza<w35>']),
  rule('azure-ad-client-secret', ['q~'], String.raw`(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}`, ['<n3>8Q~<n34>']),
  rule('azure-storage-key', ['accountkey=', 'sharedaccesskey='], '(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})', [
    'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={{<b86>==}};EndpointSuffix=core.windows.net',
    'Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={{<b43>=}}',
  ], { flags: 'i', group: 1 }),
  rule('azure-sas-signature', ['sig='], '[?&;]sig=([A-Za-z0-9%+/=]{16,})', ['https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2030-01-01T00%3A00%3A00Z&sig={{<n43>%3D}}'], { flags: 'i', group: 1 }),
  named('azure-key', ['azure', 'ocp-apim-subscription-key', 'cognitive'], '[a-f0-9]{32}|[a-z0-9]{84}', ['<h32>', '<n84>']),
  prefixed('alibaba-access-key-id', ['LTAI'], '[a-z0-9]{20}', ['LTAI<n20>'], { flags: 'i' }),
  named('alibaba-secret-key', ['alibaba'], '[a-z0-9]{30}', ['<n30>']),
  prefixed('digitalocean-token', ['doo_v1_', 'dop_v1_', 'dor_v1_'], '[a-f0-9]{64}', ['doo_v1_<h64>', 'dop_v1_<h64>', 'dor_v1_<h64>']),
  named('cloudflare-key', ['cloudflare'], '[a-z0-9_-]{40}|[a-f0-9]{37}', ['<w40>', '<h37>']),
  prefixed('cloudflare-origin-ca-key', ['v1.0-'], '[a-f0-9]{24}-[a-f0-9]{146}', ['v1.0-<h24>-<h146>']),
  named('heroku-key', ['heroku'], UUID, [UUID_SAMPLE]),
  prefixed('heroku-key-v2', ['HRKU-AA'], String.raw`[\w-]{58}`, ['HRKU-AA<w58>']),
  rule('flyio-token', ['fo1_', 'fm1a_', 'fm1r_', 'fm2_'], String.raw`${START}(?:fo1_[\w-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})`, ['fo1_<w43>', 'fm1r_<b120>', 'fm2_<b140>==']),
  named('netlify-token', ['netlify'], '[a-z0-9=_-]{40,46}', ['<w43>']),
  prefixed('databricks-token', ['dapi'], String.raw`[a-f0-9]{32}(?:-\d)?`, ['dapi<h32>', 'dapi<h32>-2']),
  rule('terraform-cloud-token', ['atlasv1'], String.raw`${START}[a-z0-9]{14}\.atlasv1\.[\w=-]{60,70}`, ['<l14>.atlasv1.<w67>'], { flags: 'i' }),
  rule('vault-token', ['hvs.', 'hvb.', 'hvr.', 's.'], String.raw`${START}(?:hv[sbr]\.[\w-]{24,}|s\.(?=[A-Za-z]{0,23}\d)[A-Za-z0-9]{24}(?![\w.]))`, ['hvs.<w95>', 'hvb.<w140>', 's.<n23>7']),
  rule('doppler-token', ['dp.'], `${START}dp\\.(?:pt|st|ct|sa|scim|audit)\\.[A-Za-z0-9]{40,44}`, ['dp.pt.<n43>', 'dp.st.<n40>', 'dp.sa.<n43>']),
  prefixed('pulumi-token', ['pul-'], '[a-f0-9]{40}', ['pul-<h40>']),
  rule('planetscale-token', ['pscale_tkn_', 'pscale_oauth_', 'pscale_pw_'], String.raw`${START}pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}`, ['pscale_tkn_<w43>', 'pscale_oauth_<w43>', 'pscale_pw_<w43>']),
  prefixed('scalingo-token', ['tk-us-'], String.raw`[\w-]{48}`, ['tk-us-<w48>']),
  named('okta-token', ['okta'], String.raw`00[\w=-]{40}`, ['00<w40>']),
  rule('onepassword-secret-key', ['a3-'], `${START}A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`, ['A3-<u6>-<u11>-<u5>-<u5>-<u5>', 'A3-<u6>-<u6>-<u5>-<u5>-<u5>-<u5>']),
  prefixed('onepassword-service-account-token', ['ops_'], 'eyJ[A-Za-z0-9+/]{250,}={0,3}', ['ops_eyJ<b260>']),
  prefixed('infracost-token', ['ico-'], '[A-Za-z0-9]{32}', ['ico-<n32>']),
  rule('harness-key', ['pat.', 'sat.'], String.raw`${START}(?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`, ['pat.<w22>.<n24>.<n20>', 'sat.<w22>.<n24>.<n20>']),
  prefixed('grafana-key', ['eyJrIjoi'], '[A-Za-z0-9]{70,400}={0,3}', ['eyJrIjoi<n80>=='], { flags: 'i' }),
  prefixed('grafana-cloud-token', ['glc_'], '[A-Za-z0-9+/]{32,400}={0,3}', ['glc_<b60>=']),
  prefixed('grafana-service-account-token', ['glsa_'], '[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}', ['glsa_<n32>_<h8>']),
  rule('sentry-token', ['sntrys_', 'sntryu_'], String.raw`${START}(?:sntrys_eyJ[A-Za-z0-9+/=_]{60,}|sntryu_[a-f0-9]{64})`, ['sntrys_eyJ<b120>_<b43>', 'sntryu_<h64>']),
  named('sentry-key', ['sentry'], '[a-f0-9]{64}', ['<h64>']),
  rule('new-relic-key', ['nrak-', 'nrjs-', 'nrii-'], String.raw`${START}(?:NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9-]{32})`, ['NRAK-<u27>', 'NRJS-<h19>', 'NRII-<l32>'], { flags: 'i' }),
  named('new-relic-user-api-id', ['new-relic', 'newrelic', 'new_relic'], '[a-z0-9]{64}', ['<l64>']),
  named('datadog-token', ['datadog'], '[a-z0-9]{40}', ['<l40>']),
  prefixed('dynatrace-token', ['dt0c01.'], '[A-Za-z0-9]{24}\\.[A-Za-z0-9]{64}', ['dt0c01.<u24>.<n64>']),
  named('sumologic-key', ['sumo'], 'su[a-z0-9]{12}|[a-z0-9]{64}', ['su<n12>', '<n64>']),
  named('launchdarkly-token', ['launchdarkly'], '[a-z0-9=_-]{40}', ['<w40>']),
  prefixed('prefect-token', ['pnu_'], '[A-Za-z0-9]{36}', ['pnu_<n36>']),
  rule('settlemint-token', ['sm_aat_', 'sm_pat_', 'sm_sat_'], `${START}sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}`, ['sm_aat_<n16>', 'sm_pat_<n16>', 'sm_sat_<n16>']),
  rule('authress-key', ['.acc_', '.acc-'], String.raw`${START}(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[\w+/=-]{30,120}`, ['sc_<l10>.<l5>.acc_<l24>.<w60>'], { flags: 'i' }),
  named('cisco-meraki-key', ['meraki'], '[0-9a-f]{40}', ['<h40>']),
  prefixed('defined-networking-token', ['dnkey-'], String.raw`[\w=-]{26}-[\w=-]{52}`, ['dnkey-<n26>-<n52>']),
  // A key of 38 characters after `4b1d` that has one outside lower-case hex (so no digest is one).
  prefixed('clickhouse-cloud-key', ['4b1d'], '(?=[A-Za-z0-9]{0,37}[g-zA-Z])[A-Za-z0-9]{38}', ['4b1d<n37>Q']),
  rule('octopus-deploy-key', ['api-'], `${START}API-[A-Z0-9]{26}(?!\\w)`, ['API-<u26>']),
  prefixed('openshift-token', ['sha256~'], String.raw`[\w-]{43}`, ['sha256~<w43>']),
  rule('kubernetes-secret', ['secret'], String.raw`kind(?<!\wkind):[ \t]*["']?Secret\b["']?[\s\S]{0,300}?\n[ \t]*(?:data|stringData):[ \t]*\r?\n((?:[ \t]+[\w.-]+:[^\n]*(?:\r?\n|$))+)`, [
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n{{  password: <b24>\n  user: <b12>\n}}',
  ], { group: 1 }),
  // The kind after the data is looked ahead for, not taken: a match ends where its secret does, so the
  // search for the next one starts there (a match taking more could hide a secret after it, and a
  // redacted text would then redact differently).
  rule('kubernetes-secret-data-first', ['secret'], String.raw`(?:data|stringData)(?<=(?:^|\n)[ \t]*(?:data|stringData)):[ \t]*\r?\n((?:[ \t]+[\w.-]+:[^\n]*\r?\n)+)(?=[\s\S]{0,300}?\bkind:[ \t]*["']?Secret\b)`, [
    'apiVersion: v1\ndata:\n{{  token: <b32>\n}}kind: Secret\n',
  ], { group: 1 }),

  // Other providers known by their name.
  named('adafruit-key', ['adafruit'], '[a-z0-9_-]{32}', ['<w32>']),
  named('adobe-client-id', ['adobe'], '[a-f0-9]{32}', ['<h32>']),
  prefixed('adobe-client-secret', ['p8e-'], '[a-z0-9]{32}', ['p8e-<n32>'], { flags: 'i' }),
  named('airtable-key', ['airtable'], '[a-z0-9]{17}', ['<n17>']),
  rule('airtable-token', ['pat'], `${START}pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}`, ['pat<n14>.<h64>']),
  named('algolia-key', ['algolia'], '[a-z0-9]{32}', ['<l32>']),
  named('asana-key', ['asana'], '[0-9]{16}|[a-z0-9]{32}', ['<d16>', '<l32>']),
  named('atlassian-token', ['atlassian', 'confluence', 'jira'], '[a-z0-9]{20}[a-f0-9]{4}', ['<l20><h4>']),
  prefixed('atlassian-token-v2', ['ATATT3'], String.raw`[\w=-]{186}`, ['ATATT3<w186>']),
  named('beamer-token', ['beamer'], String.raw`b_[\w=-]{44}`, ['b_<w44>']),
  named('confluent-key', ['confluent'], '[a-z0-9]{16}|[a-z0-9]{64}', ['<l16>', '<l64>']),
  named('contentful-token', ['contentful'], '[a-z0-9=_-]{43}', ['<w43>']),
  named('dropbox-token', ['dropbox'], String.raw`[a-z0-9]{15}|[a-z0-9]{11}AAAAAAAAAA[\w=-]{43}`, ['<l15>', '<l11>AAAAAAAAAA<w43>']),
  rule('dropbox-short-lived-token', ['sl.'], String.raw`${START}sl\.(?:u\.)?[\w=-]{130,}`, ['sl.<w135>', 'sl.u.<w140>']),
  named('fastly-token', ['fastly'], '[a-z0-9=_-]{32}', ['<w32>']),
  named('flickr-token', ['flickr'], '[a-z0-9]{32}', ['<l32>']),
  named('freshbooks-token', ['freshbooks'], '[a-z0-9]{64}', ['<l64>']),
  named('hubspot-key', ['hubspot'], UUID, [UUID_SAMPLE]),
  rule('intra42-secret', ['s-s4t2ud-', 's-s4t2af-'], `${START}s-s4t2(?:ud|af)-[a-f0-9]{64}`, ['s-s4t2ud-<h64>', 's-s4t2af-<h64>'], { flags: 'i' }),
  named('looker-key', ['looker'], '[a-z0-9]{20}|[a-z0-9]{24}', ['<l20>', '<l24>']),
  named('mapbox-token', ['mapbox'], String.raw`pk\.[a-z0-9]{60}\.[a-z0-9]{22}`, ['pk.<l60>.<l22>']),
  rule('maxmind-license-key', ['_mmk'], `${START}[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`, ['<n6>_<n29>_mmk']),
  named('nytimes-token', ['nytimes', 'new-york-times', 'newyorktimes'], '[a-z0-9=_-]{32}', ['<w32>']),
  named('privateai-token', ['privateai', 'private_ai', 'private-ai'], '[a-z0-9]{32}', ['<l32>']),
  named('rapidapi-token', ['rapidapi'], '[a-z0-9_-]{50}', ['<w50>']),
  named('yandex-key', ['yandex'], String.raw`t1\.[\w-]+={0,2}\.[\w-]{86}={0,2}|AQVN[\w-]{35,38}|YC[\w-]{38}`, ['t1.<w20>.<w86>', 'AQVN<w36>', 'YC<w38>']),
  named('zendesk-key', ['zendesk'], '[a-z0-9]{40}', ['<l40>']),
  rule('sidekiq-secret', ['bundle_enterprise__contribsys__com', 'bundle_gems__contribsys__com', 'contribsys.com'], String.raw`(?:BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM${ASSIGN}([a-f0-9]{8}:[a-f0-9]{8})${END}|https?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com)`, [
    'BUNDLE_ENTERPRISE__CONTRIBSYS__COM={{<h8>:<h8>}}', 'https://{{<h8>:<h8>}}@gems.contribsys.com/',
  ], { flags: 'i', group: 1 }),

  // Credentials in general: in a URL, a header, a command line, an assignment.
  rule('url-password', ['://'], String.raw`[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@"'\x60[\]]{0,100}:([^\s/?#@"'\x60[\]]{1,200})@`, [
    'postgres://app:{{<n16>}}@db.internal:5432/prod', 'mysql://root:{{<n12>}}@127.0.0.1/app', 'mongodb+srv://svc:{{<n20>}}@cluster0.example.net/db',
    'redis://:{{<n24>}}@cache:6379/0', 'https://deploy:{{<n14>}}@git.example.com/repo.git',
  ], { flags: 'i', group: 1 }),
  // `Bearer`/`Basic` and a credential anywhere; prose (`basic functionality`) is one lower-case word and not taken.
  rule('authorization', ['bearer', 'basic'], String.raw`${START}(?:${word('bearer')}|${word('basic')})\s+(?=[\w.~+/=-]*(?:\d|[.~+/=_-]|[a-z][A-Z]|[A-Z][A-Z]))[\w.~+/=-]{8,}`, [
    'Bearer <n32>', 'bearer <w20>.<w20>', 'Basic <b24>==', 'BASIC <b24>=',
  ]),
  rule('authorization-header', ['authorization', 'x-api-key', 'api-key:', 'x-auth-token'], String.raw`(?:authorization|x-api-key|api-key|x-auth-token)["']?\s*[:=]\s*["']?(?:[a-z-]+\s+)?(?=[^\s"',;]*[\d.~+/=_-])([^\s"',;]{8,})`, [
    'Authorization: token {{<n40>}}', 'x-api-key: {{<w40>}}', '"Authorization": "{{<n48>}}"',
  ], { flags: 'i', group: 1 }),
  rule('curl-auth-user', ['-u', '--user'], String.raw`(?:\s-u|--user)[= ]\s*["']?[^\s:"']+:([^\s"']{3,})`, ['curl -u admin:{{<n16>}} https://api.example.com', 'curl --user=ci:{{<n20>}} https://x'], { group: 1 }),
  rule('nuget-config-password', ['<add key='], String.raw`<add key="(?:ClearText)?Password"\s*value="([^"]{8,})"\s*/>`, ['<add key="ClearTextPassword" value="{{<n16>}}" />'], { flags: 'i', group: 1 }),
  rule('freemius-secret-key', ['secret_key'], String.raw`["']secret_key["']\s*=>\s*["'](sk_[^\s"']{29})["']`, ["'secret_key' => '{{sk_<n29>}}'"], { flags: 'i', group: 1 }),
  // A password named as one, quoted or up to the end of its value — not a reference to one elsewhere.
  rule('password', ['passw', 'pwd'], String.raw`(?:passw(?:or)?d|pwd)[\w.-]{0,20}["']?\s*(?:=|:|=>)\s*(?:(["'\x60])([^\s"'\x60[\]]{6,200})\1|(?=[^\s"'\x60;,&<>(){}[\]]*[^A-Za-z\s"'\x60;,&<>(){}[\]])([^\s"'\x60;,&<>(){}[\]]{8,200})(?=[\s"'\x60;,&<>)}\]]|$))`, [
    'DB_PASSWORD={{<n16>7}}', 'password: "{{<n10>}}"', 'Server=db;User Id=app;Password={{<n14>!}};', "admin_login_password = '{{<n12>}}'",
  ], { flags: 'i', group: 2, unless: String.raw`(?:=|:|=>)\s*["'\x60]?(?:\$|%|\{\{|process\.env|os\.environ|getenv|env\[|secrets\.|vars\.|\*{3,}|x{6,}|<[\w-]+>$|(?:true|false|null|none|undefined|changeme|password)["'\x60]?$)` }),
  // Anything named like a secret with a value that looks like one: a digit, a letter and high entropy.
  rule('generic-secret', ['access', 'auth', 'api', 'credential', 'creds', 'key', 'passw', 'pwd', 'secret', 'token'], String.raw`(?:access|auth|api|credential|creds|key|passw(?:or)?d|pwd|secret|token)${ASSIGN}(?=[\w.=+/-]{0,149}\d)(?=[\w.=+/-]{0,149}[a-z])([\w.=+/-]{10,150})${END}`, [
    'api_key = "{{<n32>}}"', 'CLIENT_SECRET: {{<w40>}}', '"auth_token": "{{<n24>}}"',
  ], { flags: 'i', group: 1, entropy: 3.5, unless: GENERIC_NOT_SECRET }),
];
