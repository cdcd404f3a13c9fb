export {};
//# sourceMappingURL=larder-module.js.map