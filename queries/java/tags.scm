; Java tags: definitions, calls, type uses and imports.
; Javadoc comments (/** ... */ above a declaration) are read by the extractor.
; Overloads share a qualified name; the extractor suffixes the second one's id "#2".

; ---------------------------------------------------------------------------
; Types
; ---------------------------------------------------------------------------

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

; @interface Foo { }
(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; ---------------------------------------------------------------------------
; Methods and constructors (also the methods of anonymous classes, which nest
; under the enclosing method)
; ---------------------------------------------------------------------------

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

; record R(int a) { R { ... } }
(compact_constructor_declaration
  name: (identifier) @name) @definition.constructor

; ---------------------------------------------------------------------------
; Calls. A method_invocation either has an object or not, so each call matches
; one pattern only.
; ---------------------------------------------------------------------------

; foo()
(method_invocation
  !object
  name: (identifier) @name) @reference.call

; obj.foo(), this.foo(), super.foo(), a.b.foo() (receiver "a.b"), Util.<T>foo()
(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call

; super(...) / this(...) in a constructor
(explicit_constructor_invocation
  constructor: [(super) (this)] @name) @reference.call

; new Foo(), new Foo<>(), new a.b.Foo(), new a.Foo<T>()
(object_creation_expression
  type: [(type_identifier) @name
         (generic_type (type_identifier) @name)]) @reference.call

(object_creation_expression
  type: [(scoped_type_identifier
           . (_) @receiver
           (type_identifier) @name .)
         (generic_type
           (scoped_type_identifier
             . (_) @receiver
             (type_identifier) @name .))]) @reference.call

; ---------------------------------------------------------------------------
; Type uses: supertypes, and the declared types of fields, parameters, locals and
; method results (Foo and the head of Foo<T>; type arguments are not listed)
; ---------------------------------------------------------------------------

(superclass
  [(type_identifier) @name
   (generic_type (type_identifier) @name)]) @reference.class

(super_interfaces
  (type_list
    [(type_identifier) @name
     (generic_type (type_identifier) @name)])) @reference.class

(extends_interfaces
  (type_list
    [(type_identifier) @name
     (generic_type (type_identifier) @name)])) @reference.class

(field_declaration
  type: [(type_identifier) @name
         (generic_type (type_identifier) @name)]) @reference.class

(formal_parameter
  type: [(type_identifier) @name
         (generic_type (type_identifier) @name)]) @reference.class

(local_variable_declaration
  type: [(type_identifier) @name
         (generic_type (type_identifier) @name)]) @reference.class

(method_declaration
  type: [(type_identifier) @name
         (generic_type (type_identifier) @name)]) @reference.class

; ---------------------------------------------------------------------------
; Imports: @name is the bound (last) name, @source the full dotted path
; ---------------------------------------------------------------------------

; import java.util.List;   import static java.util.Objects.requireNonNull;
(import_declaration
  (scoped_identifier
    name: (identifier) @name) @source .) @reference.import

; package org.apache.commons.csv;   (a fact: the package the file declares; its
; classes see the package's others wherever their source root is: src/main, src/test)
(package_declaration [(scoped_identifier) (identifier)] @name) @reference.package

; package org.apache.commons.csv;   (a fact: the package the file declares; its
; classes see the package's others wherever their source root is: src/main, src/test)
(package_declaration [(scoped_identifier) (identifier)] @name) @reference.package

; import java.util.*;   (name "*": every public type of the package)
(import_declaration
  (scoped_identifier) @source
  (asterisk) @name) @reference.import

; ---------------------------------------------------------------------------
; Facts for resolving calls (codeloupe.graph), not shown as references:
;   base:    @name a class / interface this one extends or implements
;   typed:   @name a parameter / local / field, @source its type
;   assign:  @name = @source (the value, as text); @receiver "this" for fields
;   returns: @name the return type of the enclosing method
; ---------------------------------------------------------------------------

(superclass
  [(type_identifier) @name
   (generic_type (type_identifier) @name)
   (scoped_type_identifier (type_identifier) @name .)]) @reference.base

(super_interfaces
  (type_list
    [(type_identifier) @name
     (generic_type (type_identifier) @name)])) @reference.base

(extends_interfaces
  (type_list
    [(type_identifier) @name
     (generic_type (type_identifier) @name)])) @reference.base

(formal_parameter
  type: (_) @source
  name: (identifier) @name) @reference.typed

(local_variable_declaration
  type: (_) @source
  declarator: (variable_declarator name: (identifier) @name)) @reference.typed

(field_declaration
  type: (_) @source
  declarator: (variable_declarator name: (identifier) @name)) @reference.typed

(enhanced_for_statement
  type: (_) @source
  name: (identifier) @name) @reference.typed

(resource
  type: (_) @source
  name: (identifier) @name) @reference.typed

(variable_declarator
  name: (identifier) @name
  value: [(object_creation_expression) (method_invocation)] @source) @reference.assign

(assignment_expression
  left: (field_access object: (this) @receiver field: (identifier) @name)
  right: [(object_creation_expression) (method_invocation) (identifier)] @source) @reference.assign

(method_declaration
  type: (_) @name) @reference.returns

; return: @name a value the enclosing function returns (its type when nothing
; declares one)
(return_statement (_) @name) @reference.return

; a class's or a method's type parameters (`class A<T>`, `<K> void m()`): names bound
; there (declared, of no type), so a local typed `T` is not taken for an outside type
(type_parameters (type_parameter (type_identifier) @name)) @reference.typed

; a class's or a method's type parameters (`class A<T>`, `<K> void m()`): names bound
; there (declared, of no type), so a local typed `T` is not taken for an outside type
(type_parameters (type_parameter (type_identifier) @name)) @reference.typed
