export { ElicitationProxy, type ProxyOptions } from './proxy.js';
export { ChildUpstream, type Upstream, type UpstreamHandlers } from './child.js';
export { HttpUpstream } from './http.js';
