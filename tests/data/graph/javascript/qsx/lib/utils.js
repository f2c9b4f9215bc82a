'use strict';

var merge = function merge(target, source) {
    Object.keys(source).forEach(function (key) {
        target[key] = source[key];
    });
    return target;
};

var assign = function assignSingleSource(target, source) {
    return merge(target, source);
};

var encode = function encode(str) {
    return encodeURIComponent(str);
};

module.exports = {
    assign: assign,
    encode,
    merge: merge
};
