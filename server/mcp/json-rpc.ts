/** A JSON-RPC error body for answers outside any request's id (transport and session failures). */
export function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
