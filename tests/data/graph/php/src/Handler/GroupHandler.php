<?php

namespace App\Handler;

// types PHP declares only in doc comments (`@var`, `@param`, `@return`), a doc type that
// refines the declared one, and a receiver narrowed by `instanceof`
class GroupHandler
{
    /** @var HandlerInterface[] */
    protected $handlers;

    /**
     * @var HandlerInterface
     */
    protected $inner;

    public function handleAll(array $record): void
    {
        foreach ($this->handlers as $handler) {
            $handler->handleRecord($record);
        }
        if ($this->inner instanceof ResettableInterface) {
            $this->inner->resetAll();
        }
        $this->inner->resetAll();
    }

    /**
     * @param StreamHandler $handler
     * @return NullHandler
     */
    public function wrap(HandlerInterface $handler, $fallback)
    {
        $handler->handleRecord([]);
        return $fallback;
    }

    public function chain(): void
    {
        $this->wrap(new StreamHandler(), new NullHandler())->handleRecord([]);
    }
}
