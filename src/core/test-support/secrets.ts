/** Test data: secrets of each kind the built-in rules know, shaped as they appear in the wild (all fake). */
export const SAMPLE_SECRETS: Record<string, string> = {
  'github classic token': 'ghp_1234567890abcdefghijklmnopqrstuvwxyzAB',
  'github fine-grained token': 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWX',
  'github oauth token': 'gho_abcdefghijklmnopqrstuvwxyz0123456789',
  'github app token': 'ghs_abcdefghijklmnopqrstuvwxyz0123456789',
  'aws access key id': 'AKIAIOSFODNN7EXAMPLE',
  'aws session key id': 'ASIAY34FZKBOKMUTVV7A',
  'slack bot token': 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  'slack user token': 'xoxp-123456789012-123456789012-123456789012-abcdefabcdefabcdefabcdefabcdef12',
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  'google api key': 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  'stripe secret key': 'sk_live_51HAbCdEfGhIjKlMnOpQrStUvWx',
  'stripe restricted key': 'rk_live_51HAbCdEfGhIjKlMnOpQrStUvWx',
  'openai key': 'sk-proj-AbCdEfGhIjKlMnOpQrSt1234567890',
  'bearer token': 'Bearer abcDEF123456.ghiJKL789',
  'bearer token in lower case': 'bearer abcDEF123456.ghiJKL789',
  'basic auth': 'BASIC dXNlcjpwYXNzd29yZDEyMw==',
};

