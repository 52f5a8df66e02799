/** What a `fetch` is to the library: the recording and replaying ones, the upstream they call, a client's own. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
