declare module 'flake-idgen' {
  interface FlakeIdOptions {
    id?: number;
    datacenter?: number;
    worker?: number;
    epoch?: number;
  }
  class FlakeId {
    constructor(options?: FlakeIdOptions);
    next(): Buffer;
  }
  export default FlakeId;
}
