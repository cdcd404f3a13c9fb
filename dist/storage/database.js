export {};
//# sourceMappingURL=database.js.map