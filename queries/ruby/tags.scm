; Ruby tags: classes, modules, methods, calls, superclasses / mixins and requires.
;
; `def` is captured as a function: inside a class or module the extractor makes it a
; method. `def self.x` (and `def obj.x`) nest the same way, and so do the methods of
; a `class << self` block (the block itself is not a symbol).
; Only `call` nodes are calls: a bare word without arguments or parentheses (`flush`)
; parses as an identifier, which may as well be a local variable, and is skipped.

; ---- classes and modules (`class A::B` is named `B`) -------------------------------

(class
  name: [(constant) @name
         (scope_resolution name: (_) @name)]) @definition.class

(module
  name: [(constant) @name
         (scope_resolution name: (_) @name)]) @definition.module

; ---- methods ------------------------------------------------------------------------

(method
  name: (_) @name) @definition.function

(singleton_method
  name: (_) @name) @definition.function

; ---- calls --------------------------------------------------------------------------

; obj.m(x), obj.m x, Foo.new, self.m, Mod::Klass.new
(call
  receiver: (_) @receiver
  method: [(identifier) (constant)] @name) @reference.call

; m(x), m x, puts "x"
(call
  !receiver
  method: [(identifier) (constant)] @name) @reference.call

; ---- type uses: superclass and mixins -------------------------------------------------

(superclass
  [(constant) @name
   (scope_resolution name: (constant) @name)]) @reference.class

(call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    [(constant) @name
     (scope_resolution name: (constant) @name)] @reference.class)
  (#any-of? @_mixin "include" "extend" "prepend"))

; ---- imports: require 'x', require_relative 'x' ------------------------------------

(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (string
      .
      (string_content) @name .) @source)
  (#any-of? @_require "require" "require_relative")) @reference.import

; a path the code computes, ending with a literal: `require HERE + 'helper'`,
; `require ROOT + '/auto/report'`, `require "#{File.dirname(__FILE__)}/prompt"`: the
; literal tail names the file (beside the requirer, else the nearest path ending so)
(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (binary
      operator: "+"
      right: (string . (string_content) @name @source .)))
  (#any-of? @_require "require" "require_relative" "load")) @reference.import

(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (string
      (interpolation)
      .
      (string_content) @name @source .))
  (#match? @name "^/")
  (#any-of? @_require "require" "require_relative" "load")) @reference.import

; base: @name the superclass, or a module mixed in with include (codeloupe.graph
; resolves inherited calls through it)
(class
  superclass: (superclass [(constant) @name (scope_resolution name: (constant) @name)])) @reference.base

((call
  !receiver
  method: (identifier) @_include
  arguments: (argument_list [(constant) @name (scope_resolution name: (constant) @name)])) @reference.base
  (#any-of? @_include "include" "prepend" "extend"))

; a module's `included` hook that mixes modules into the includer (`base.extend
; ClassMethods`, `base.send :include, Helpers`): they are the module's bases too, so
; every class including it reaches their methods (the extractor files a base under the
; class or module around it, not the hook method)
; (the hook: `def self.included(base)` or `def included(base)` in `class << self`)
((_
   name: (identifier) @_hook
   (body_statement
     (call
       receiver: (identifier)
       method: (identifier) @_extend
       arguments: (argument_list [(constant) @name (scope_resolution name: (constant) @name)])) @reference.base))
  (#eq? @_hook "included")
  (#any-of? @_extend "extend" "include" "prepend"))

; `base.send :include, M` in the hook: the same
((_
   name: (identifier) @_hook
   (body_statement
     (call
       receiver: (identifier)
       method: (identifier) @_send
       arguments: (argument_list
         .
         (simple_symbol) @_mix
         .
         [(constant) @name (scope_resolution name: (constant) @name)])) @reference.base))
  (#eq? @_hook "included")
  (#any-of? @_send "send" "__send__")
  (#any-of? @_mix ":include" ":extend" ":prepend"))

; `super` / `super(x)`: a call of the method of the same name in the superclass
(super) @name @reference.call

; ---- facts for resolving calls (codeloupe.graph), not shown as references ----------
;   assign: @name = @source (the value, as text); `@x = ...` is an attribute of the
;           instance (the extractor reads it as `self.x`)

(assignment
  left: [(identifier) (instance_variable)] @name
  right: (_) @source) @reference.assign

; `Link = Transport`: a constant naming a class (an alias)
(assignment
  left: (constant) @name
  right: [(constant) (scope_resolution)] @source) @reference.assign
