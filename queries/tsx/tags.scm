; inherits: typescript
; TSX tags: every TypeScript pattern (the tsx grammar is a superset of typescript),
; plus the JSX patterns below.

; ---------------------------------------------------------------------------
; JSX: rendering <Button /> or <Ui.Button> calls the component. Lower-case names
; are intrinsic elements (div, span) and are not references.
; ---------------------------------------------------------------------------

((jsx_opening_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

((jsx_self_closing_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call
