'use strict';

var utils = require('./utils');

var parseValues = function parseQueryStringValues(str) {
    var obj = {};
    str.split('&').forEach(function (part) {
        var pair = part.split('=');
        obj[pair[0]] = pair[1];
    });
    return obj;
};

module.exports = function (str, opts) {
    var tempObj = parseValues(str);
    return utils.merge(opts && opts.plainObjects ? {} : {}, tempObj);
};
