'use strict';

var utils = require('./utils');

var stringify = function stringify(object, prefix, encoder) {
    var values = [];
    for (var key in object) {
        if (typeof object[key] === 'object') {
            values = values.concat(stringify(object[key], prefix + '[' + key + ']', encoder));
        } else {
            values.push(encoder(prefix + key) + '=' + encoder(object[key]));
        }
    }
    return values;
};

module.exports = function (object, opts) {
    var options = utils.assign({}, opts);
    return stringify(object, '', options.encoder || utils.encode).join('&');
};
