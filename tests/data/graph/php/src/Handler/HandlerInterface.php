<?php

namespace App\Handler;

interface HandlerInterface
{
    public function handleRecord(array $record): bool;
}

interface ResettableInterface
{
    public function resetAll(): void;
}
