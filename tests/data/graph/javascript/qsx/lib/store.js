'use strict';

// the traps: methods named like the exported functions
function Store() {
    this.items = {};
}

Store.prototype.merge = function (other) {
    return Object.assign(this.items, other);
};

Store.prototype.stringify = function () {
    return JSON.stringify(this.items);
};

module.exports = Store;
