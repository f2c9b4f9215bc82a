'use strict';

var stringify = require('./stringify');
var parse = require('./parse');
var utils = require('./utils');

module.exports = {
    parse: parse,
    stringify: stringify,
    escape: utils.encode
};
