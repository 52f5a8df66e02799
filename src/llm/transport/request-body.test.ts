import { afterEach, describe, expect, it, vi } from 'vitest';
import { asRequest, requestBytes, requestText } from './request-body.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('requestBytes / requestText', () => {
  it('reads a body made here from bytes without reading the Request: no clone, the Request still whole', async () => {
    const clone = vi.spyOn(Request.prototype, 'clone');
    const given = new TextEncoder().encode('{"q":"hé"}');
    const request = asRequest('http://127.0.0.1:1/v1/chat/completions', { method: 'POST', body: given });
    given.fill(0);
    expect(await requestText(request)).toBe('{"q":"hé"}');
    expect(await requestBytes(request)).toEqual(new TextEncoder().encode('{"q":"hé"}'));
    expect(clone).not.toHaveBeenCalled();
    expect(request.bodyUsed).toBe(false);
    // Whatever the caller did to its bytes after, the Request and its readers agree.
    expect(await request.text()).toBe('{"q":"hé"}');
  });

  it('a body given as a string, the same', async () => {
    const clone = vi.spyOn(Request.prototype, 'clone');
    const request = asRequest('http://127.0.0.1:1/x', { method: 'POST', body: 'hé' });
    expect(await requestText(request)).toBe('hé');
    expect(clone).not.toHaveBeenCalled();
  });

  it('a Request made elsewhere is read once, through a clone, and left whole', async () => {
    const clone = vi.spyOn(Request.prototype, 'clone');
    const request = new Request('http://127.0.0.1:1/x', { method: 'POST', body: new Blob(['\uFEFFhé']) });
    expect(await requestText(request)).toBe('hé');
    expect(await requestText(request)).toBe('hé');
    expect(clone).toHaveBeenCalledTimes(1);
    expect(await request.text()).toBe('hé');
  });

  it('no body: null and the empty text', async () => {
    const request = asRequest('http://127.0.0.1:1/x');
    expect(await requestBytes(request)).toBeNull();
    expect(await requestText(request)).toBe('');
  });
});
